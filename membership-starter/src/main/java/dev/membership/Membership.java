package dev.membership;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.Partitions;
import dev.membership.leadership.ScheduledJobInfo;
import dev.membership.liveness.Member;

/**
 * The cluster as this node sees it. Every query is answered from memory; none touches the
 * database. What an operator tells the cluster to do (resign, drain, hand over, move,
 * pause) is {@link dev.membership.operations.ClusterOperations}.
 */
public interface Membership {

	String nodeId();

	/** The address other nodes use to reach this one, or null before it started. */
	@Nullable String advertisedAddress();

	/**
	 * Whether this node leads {@code group} right now. Computed from the local monotonic
	 * clock at every call: it turns false at the local deadline even if the election
	 * thread is stuck.
	 */
	boolean isLeader(String group);

	/** The leader of {@code group} as this node last saw it (may be this node). */
	Optional<LeaderInfo> leader(String group);

	/**
	 * Every member in the last roster this node took (itself always live), live ones
	 * first, oldest first.
	 */
	List<Member> members();

	List<Member> liveMembers();

	/**
	 * When the liveness of {@link #members()} was last checked, by the database's clock:
	 * the roster keeper reads every node's heartbeat each renewal interval, and this is
	 * its latest read as this node knows it (the keeper's own, or the keeper's latest
	 * renewal this node read, which comes with that read). Empty before the first. A
	 * member's own {@code lastHeartbeat} is as of the roster's last write, which a quiet
	 * cluster makes rarely.
	 */
	default Optional<Instant> livenessCheckedAt() {
		return Optional.empty();
	}

	/** The groups this node competes for. */
	Set<String> groups();

	/**
	 * The partitioned group {@code group} as this node sees it: the partitions it owns
	 * with their terms, work for one of them, and where the coordinator placed each.
	 * @throws IllegalArgumentException when this node has no such partitioned group
	 */
	Partitions partitions(String group);

	/**
	 * The partitioned groups of this node ({@code membership.partitions}); the others of
	 * {@link #groups()} are plain.
	 */
	default Set<String> partitionedGroups() {
		return Set.of();
	}

	/**
	 * Makes this node compete for the leadership of the plain group {@code group} too
	 * (idempotent); groups named in {@code membership.groups} or by {@code @LeaderOnly}
	 * are competed for from the start.
	 * @throws IllegalArgumentException for a name no group may have, or a partitioned
	 * group's (its partitions are placed by the coordinator)
	 */
	void competeFor(String group);

	/**
	 * The scheduled jobs whose fires are the cluster's ({@code @LeaderOnly @Scheduled}
	 * with a cron or a fixed rate) that this node runs, with their last and next fires as
	 * this node knows them (the leader of their group knows).
	 */
	default List<ScheduledJobInfo> scheduledJobs() {
		return List.of();
	}

	/** Health-level facts about this node's contact with the store. */
	MembershipStatus status();

	/**
	 * Database time as this node estimates it (empty before its first contact with the
	 * store): for stamping records that other nodes compare, never a substitute for the
	 * lease.
	 */
	Optional<Instant> serverTimeEstimate();

	/**
	 * Runs {@code task} if this node leads {@code group} and is not handing it over,
	 * without touching the database; the task gets the term from
	 * {@link LeaderContext#currentTerm()}. A graceful stop or resign waits for the task
	 * before it releases the lease. Returns whether it ran. For work that is not a method
	 * ({@code @LeaderOnly} guards methods).
	 */
	boolean runIfLeader(String group, Runnable task);

}
