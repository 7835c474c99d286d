package dev.membership.operations;

import org.jspecify.annotations.Nullable;

/** What every request checks as it is made, with what to write instead. */
final class Checks {

	private Checks() {
	}

	static String named(@Nullable String value, String what, String example) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException("The request names " + what + ": " + example);
		}
		return value.strip();
	}

	static int partition(int partition, String example) {
		if (partition < 0) {
			throw new IllegalArgumentException("A partition is numbered from 0, not " + partition + ": " + example);
		}
		return partition;
	}

	static Requester requester(@Nullable Requester requester) {
		if (requester == null) {
			throw new IllegalArgumentException("Every operation says who asked: Requester.of(\"admin-console\"), or "
					+ "the principal over HTTP");
		}
		return requester;
	}

}
