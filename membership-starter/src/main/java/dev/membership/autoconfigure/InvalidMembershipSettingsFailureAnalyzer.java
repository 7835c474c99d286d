package dev.membership.autoconfigure;

import java.util.stream.Collectors;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.membership.InvalidMembershipSettingsException;

/**
 * Names only the rules that were broken, with their values, and the properties to change.
 */
class InvalidMembershipSettingsFailureAnalyzer extends AbstractFailureAnalyzer<InvalidMembershipSettingsException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidMembershipSettingsException cause) {
		String description = cause.violations()
			.stream()
			.map((v) -> "  - " + v.settings()
				.stream()
				.map(InvalidMembershipSettingsFailureAnalyzer::property)
				.collect(Collectors.joining(", ")) + ": " + v.message())
			.collect(Collectors.joining(System.lineSeparator(),
					"The membership configuration cannot keep leadership safe:" + System.lineSeparator(), ""));
		String properties = cause.violations()
			.stream()
			.flatMap((v) -> v.settings().stream())
			.distinct()
			.map(InvalidMembershipSettingsFailureAnalyzer::property)
			.collect(Collectors.joining(", "));
		String action = "Change " + properties + " as each line above says. A duration without a unit is read in "
				+ "seconds. The defaults (renewal-interval 5s, lease-duration 15s, liveness-window 10s) keep every "
				+ "rule.";
		return new FailureAnalysis(description, action, cause);
	}

	/**
	 * A setting's property: a membership one by its name under {@code membership.},
	 * Spring's by its own.
	 */
	private static String property(String setting) {
		return setting.startsWith("spring.") ? setting : "membership." + setting;
	}

}
