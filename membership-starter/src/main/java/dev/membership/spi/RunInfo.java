package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One run of work registered with a term, as it begins: a call of a {@code @LeaderOnly}
 * method, one partition's call of a {@code @ForEachOwnedPartition} method, a
 * {@code runIfLeader} or {@code runIfOwner} task, or an integration's registered work.
 *
 * @param id unique among the runs of every node (the node's incarnation and a count)
 * @param job what runs: {@code bean#method} for the starter's guards, the name an
 * integration registered otherwise
 * @param group the group, plain or partitioned
 * @param partition the partition, for a partitioned group's run; null for a plain group's
 * @param partitions how many partitions the group has (0 for a plain group): whether a
 * partition makes a sane tag
 * @param epoch the term's epoch, the fencing token the run writes with
 * @param nodeId the node that runs it
 * @param startedAt when it began, by the node's estimate of the database's clock (null
 * before the node's first contact with the database): comparable across nodes, within the
 * estimate's error
 * @param onThread whether the run is bound to the thread that began it (and ends on it);
 * false for a reactive pipeline's
 * @param fireAt for a run of a scheduled fire, the fire's instant in its schedule (what
 * identifies it cluster-wide with its job); null for any other run
 */
public record RunInfo(String id, String job, String group, @Nullable Integer partition, int partitions, long epoch,
		String nodeId, @Nullable Instant startedAt, boolean onThread, @Nullable Instant fireAt) {

	/** A run that is no scheduled fire's. */
	public RunInfo(String id, String job, String group, @Nullable Integer partition, int partitions, long epoch,
			String nodeId, @Nullable Instant startedAt, boolean onThread) {
		this(id, job, group, partition, partitions, epoch, nodeId, startedAt, onThread, null);
	}

}
