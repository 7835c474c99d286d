package dev.membership;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * @param running whether the node's loop runs
 * @param ready whether it has read the cluster (the roster, or as its keeper the node
 * documents) since it started, and its attempts to acquire leases are answered (false
 * while every one has failed for a lease duration or more)
 * @param lastHeartbeatAge time since the last successful heartbeat or renewal (null if
 * none yet)
 * @param consecutiveFailures store operations that failed in a row
 * @param lastError the last store error message, or null
 * @param duplicateNodeId whether another process wrote this node's document with another
 * incarnation
 * @param hungRuns runs on this node past their {@code maxRunTime} that still run, the
 * longest-running first
 * @param drained whether the node is drained (an operator's
 * {@code ClusterOperations.drain}, or the application's readiness refusing traffic): it
 * holds and takes nothing
 */
public record MembershipStatus(boolean running, boolean ready, @Nullable Duration lastHeartbeatAge,
		int consecutiveFailures, @Nullable String lastError, boolean duplicateNodeId, List<HungRun> hungRuns,
		boolean drained) {

	public MembershipStatus {
		hungRuns = List.copyOf(hungRuns);
	}

	/**
	 * A run past its {@code maxRunTime} that still runs: its group or partition was
	 * handed over.
	 *
	 * @param job what runs ({@code bean#method})
	 * @param group its group
	 * @param partition its partition, or null for a plain group
	 * @param epoch the epoch it runs under (a newer owner writes with a greater one)
	 * @param runningSince when it began, by the node's estimate of the database's clock
	 * (null if unknown)
	 * @param runningFor how long it has run, by the node's clock
	 */
	public record HungRun(String job, String group, @Nullable Integer partition, long epoch,
			@Nullable Instant runningSince, Duration runningFor) {
	}

}
