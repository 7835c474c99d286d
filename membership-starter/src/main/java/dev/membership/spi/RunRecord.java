package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run as the history keeps it.
 *
 * @param id the run's id ({@link RunInfo#id()}), unique among the runs of every node
 * @param process the node process that ran it (a prefix of its incarnation): a store keeps a bounded number of runs
 * per job, partition and process
 * @param sequence the run's number among the runs of its job and partition in its process (1, 2, ...)
 * @param job what ran ({@code bean#method})
 * @param group its group
 * @param partition its partition, or null for a plain group
 * @param nodeId the node that ran it
 * @param epoch the term's epoch
 * @param startedAt when it began (the node's estimate of the database's clock)
 * @param endedAt when it ended, or null while it runs (or if its node died before it ended)
 * @param outcome how it ended, or null while it runs
 * @param error the first line of what it threw, or null
 * @param first whether this write is the run's first: the store then writes it whole, else only its end
 */
public record RunRecord(String id, String process, long sequence, String job, String group,
		@Nullable Integer partition, String nodeId, long epoch, Instant startedAt, @Nullable Instant endedAt,
		@Nullable RunOutcome outcome, @Nullable String error, boolean first) {
}
