package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run as the history keeps it.
 *
 * @param id the run's id ({@link RunInfo#id()}), unique among the runs of every node
 * @param process the node process that ran it (a prefix of its incarnation): a store
 * keeps a bounded number of runs per job, partition and process
 * @param sequence the run's number among the runs of its job and partition in its process
 * (1, 2, ...)
 * @param job what ran ({@code bean#method})
 * @param group its group
 * @param partition its partition, or null for a plain group
 * @param nodeId the node that ran it
 * @param epoch the term's epoch
 * @param startedAt when it began (the node's estimate of the database's clock)
 * @param endedAt when it ended, or null while it runs (or if its node died before it
 * ended)
 * @param outcome how it ended, or null while it runs
 * @param error what it threw: the exception's class and the first line of its message
 * with credentials taken out (or the class only,
 * {@code membership.history.error-detail=class}), at most 300 characters; or null
 * @param requestedBy for an operator's action ({@code operator#drain}, ...): who asked
 * (the principal, {@code anonymous}, or the name a program gave); null for a run
 * @param requestedFrom for an operator's action: the address it was asked from, or null
 * (a Java caller, or a run)
 * @param fireAt for a scheduled fire: its instant in its schedule (for fires recorded
 * {@code missed} or {@code skipped} together, the first: {@code startedAt} and
 * {@code endedAt} are the first's and the last's); null for any other run
 * @param first whether this write is the run's first: the store then writes it whole,
 * else only its end
 */
public record RunRecord(String id, String process, long sequence, String job, String group, @Nullable Integer partition,
		String nodeId, long epoch, Instant startedAt, @Nullable Instant endedAt, @Nullable RunOutcome outcome,
		@Nullable String error, @Nullable String requestedBy, @Nullable String requestedFrom, @Nullable Instant fireAt,
		boolean first) {

	/** A record that is no scheduled fire's. */
	public RunRecord(String id, String process, long sequence, String job, String group, @Nullable Integer partition,
			String nodeId, long epoch, Instant startedAt, @Nullable Instant endedAt, @Nullable RunOutcome outcome,
			@Nullable String error, @Nullable String requestedBy, @Nullable String requestedFrom, boolean first) {
		this(id, process, sequence, job, group, partition, nodeId, epoch, startedAt, endedAt, outcome, error,
				requestedBy, requestedFrom, null, first);
	}

}
