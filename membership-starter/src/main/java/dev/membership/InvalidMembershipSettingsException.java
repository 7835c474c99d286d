package dev.membership;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Settings that cannot give the guarantees. Each violation names the setting the way
 * properties spell it.
 */
public class InvalidMembershipSettingsException extends IllegalArgumentException {

	private final List<Violation> violations;

	public InvalidMembershipSettingsException(List<Violation> violations) {
		super("Invalid membership settings: "
				+ violations.stream().map((v) -> v.settings() + ": " + v.message()).collect(Collectors.joining("; ")));
		this.violations = List.copyOf(violations);
	}

	public List<Violation> violations() {
		return this.violations;
	}

	/**
	 * @param settings the settings involved, in property spelling without prefix (e.g.
	 * {@code lease-duration})
	 * @param message what is wrong and what would be right
	 */
	public record Violation(List<String> settings, String message) {
	}

}
