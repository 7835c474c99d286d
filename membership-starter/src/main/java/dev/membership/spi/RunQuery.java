package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Which runs to read from the history, newest first; every criterion may be null (any).
 *
 * @param job {@code bean#method}
 * @param group the group
 * @param partition the partition
 * @param nodeId the node that ran them
 * @param since runs that began at or after this instant
 * @param limit at most this many (1 to {@value #MAX_LIMIT})
 */
public record RunQuery(@Nullable String job, @Nullable String group, @Nullable Integer partition,
		@Nullable String nodeId, @Nullable Instant since, int limit) {

	/** The most runs one query returns. */
	public static final int MAX_LIMIT = 1000;

	public RunQuery {
		if (limit < 1 || limit > MAX_LIMIT) {
			throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", not " + limit);
		}
	}

	/** The newest {@code limit} runs of every job. */
	public static RunQuery latest(int limit) {
		return new RunQuery(null, null, null, null, null, limit);
	}

}
