package dev.membership.operations;

import org.jspecify.annotations.Nullable;

/**
 * Who asked for an operation: recorded with it in the run history and the node's log.
 *
 * @param name the principal (an authenticated user's name over HTTP, {@value #ANONYMOUS}
 * for a caller the application let in without authentication, or a name a program gives
 * itself: {@code "admin-console"}); control characters are replaced by {@code ?}, and a
 * name is at most {@value #MAX_LENGTH} characters
 * @param address where the request came from (the caller's IP address over HTTP), or null
 * when there is none
 */
public record Requester(String name, @Nullable String address) {

	/** The name of a caller who did not authenticate. */
	public static final String ANONYMOUS = "anonymous";

	/** The longest name and address kept: a label, not a document. */
	public static final int MAX_LENGTH = 200;

	public Requester {
		if (name == null || name.isBlank()) {
			throw new IllegalArgumentException("A requester has a name: the principal, \"" + ANONYMOUS + "\", or the "
					+ "name of the program that asks (Requester.of(\"admin-console\"))");
		}
		name = label(name);
		address = (address != null && !address.isBlank()) ? label(address) : null;
	}

	/** A program or person known by {@code name}, with no address. */
	public static Requester of(String name) {
		return new Requester(name, null);
	}

	/** A caller who did not authenticate, from {@code address} (null when unknown). */
	public static Requester anonymous(@Nullable String address) {
		return new Requester(ANONYMOUS, address);
	}

	/** {@code name}, or {@code name from address}: as the log says it. */
	@Override
	public String toString() {
		return (this.address != null) ? this.name + " from " + this.address : this.name;
	}

	private static String label(String value) {
		String trimmed = value.strip();
		StringBuilder kept = new StringBuilder(Math.min(trimmed.length(), MAX_LENGTH));
		for (int i = 0; i < trimmed.length() && kept.length() < MAX_LENGTH; i++) {
			char c = trimmed.charAt(i);
			kept.append(Character.isISOControl(c) ? '?' : c); // no forged log lines
		}
		return kept.toString();
	}

}
