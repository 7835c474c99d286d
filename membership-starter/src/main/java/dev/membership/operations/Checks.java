package dev.membership.operations;

import org.jspecify.annotations.Nullable;

/** What every request checks as it is made, with what to write instead. */
final class Checks {

	private Checks() {
	}

	/**
	 * The longest group or node name a request takes: names are labels, and they end up
	 * in logs and the history.
	 */
	static final int MAX_NAME = 200;

	static String named(@Nullable String value, String what, String example) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException("The request names " + what + ": " + example);
		}
		String name = value.strip();
		if (name.length() > MAX_NAME || name.chars().anyMatch(Character::isISOControl)) {
			throw new IllegalArgumentException("The request names " + what + " with at most " + MAX_NAME
					+ " characters and no control characters: " + example);
		}
		return name;
	}

	static int partition(int partition, String example) {
		if (partition < 0) {
			throw new IllegalArgumentException("A partition is numbered from 0, not " + partition + ": " + example);
		}
		return partition;
	}

	static Requester requester(@Nullable Requester requester) {
		if (requester == null) {
			throw new IllegalArgumentException(
					"Every operation says who asked: Requester.of(\"admin-console\"), or " + "the principal over HTTP");
		}
		return requester;
	}

}
