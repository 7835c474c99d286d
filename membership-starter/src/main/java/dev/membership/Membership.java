package dev.membership;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.Partitions;
import dev.membership.liveness.Member;

/**
 * The cluster as this node sees it. Every query is answered from memory; none touches the database.
 */
public interface Membership {

	String nodeId();

	/** The address other nodes use to reach this one, or null before it started. */
	@Nullable String advertisedAddress();

	/**
	 * Whether this node leads {@code group} right now. Computed from the local monotonic clock at every call: it turns
	 * false at the local deadline even if the election thread is stuck.
	 */
	boolean isLeader(String group);

	/** The leader of {@code group} as this node last saw it (may be this node). */
	Optional<LeaderInfo> leader(String group);

	/** Every member in the last roster this node took (itself always live), live ones first, oldest first. */
	List<Member> members();

	List<Member> liveMembers();

	/**
	 * When the liveness of {@link #members()} was last checked, by the database's clock: the roster keeper reads every
	 * node's heartbeat each renewal interval, and this is its latest read as this node knows it (the keeper's own, or
	 * the keeper's latest renewal this node read, which comes with that read). Empty before the first. A member's own
	 * {@code lastHeartbeat} is as of the roster's last write, which a quiet cluster makes rarely.
	 */
	default Optional<Instant> livenessCheckedAt() {
		return Optional.empty();
	}

	/** The groups this node competes for. */
	Set<String> groups();

	/**
	 * The partitioned group {@code group} as this node sees it: the partitions it owns with their terms, work for one
	 * of them, and where the coordinator placed each.
	 * @throws IllegalArgumentException when this node has no such partitioned group
	 */
	Partitions partitions(String group);

	/** The partitioned groups of this node ({@code membership.partitions}); the others of {@link #groups()} are plain. */
	default Set<String> partitionedGroups() {
		return Set.of();
	}

	/**
	 * Makes this node compete for the leadership of the plain group {@code group} too (idempotent); groups named in
	 * {@code membership.groups} or by {@code @LeaderOnly} are competed for from the start.
	 * @throws IllegalArgumentException for a name no group may have, or a partitioned group's (its partitions are
	 * placed by the coordinator)
	 */
	void competeFor(String group);

	/**
	 * Gives up leadership of the plain group {@code group}: no new leader-only work of the group starts from now on,
	 * work that asked to be interrupted is, and once the rest has finished (at most the drain timeout) the belief ends
	 * and the lease is released, so that another node takes over; this node then stays out of the race for two
	 * renewal intervals. Returns at once; with no leader-only work running, the belief has ended when it returns. Does
	 * nothing when this node competes for the group but does not lead it.
	 * @throws IllegalArgumentException when this node does not compete for {@code group}, or it is a partitioned
	 * group (release one of its partitions with {@link Partitions#release(int)})
	 */
	void resign(String group);

	/**
	 * Hands the plain group {@code group}, which this node leads, to the live member {@code nodeId}: as
	 * {@link #resign(String)} (the drain, then the release), naming {@code nodeId} as the successor, which takes the
	 * lease over at once when told (over the broadcast; without it, at its next read, where another node may take it
	 * first). The placement may later move the group on to balance the cluster, as it may any group. Returns at once.
	 * @throws IllegalArgumentException when this node does not lead {@code group}, or {@code nodeId} is not a live
	 * member that competes for it, each with what to do instead
	 */
	void handOver(String group, String nodeId);

	/**
	 * Drains this node, for maintenance or before a deploy: it hands over every group and partition it holds (each
	 * after its leader-only work drained, to the node that would take it if this one left) and takes none until
	 * {@link #undrain()}, while it stays up, a live member, and answers. The placement puts nothing on it meanwhile.
	 * Returns at once; idempotent. Leadership events say {@code DRAINED}.
	 */
	void drain();

	/** Undoes {@link #drain()}: the node competes again, and the placement gives it its share. Idempotent. */
	void undrain();

	/**
	 * Pauses rebalancing for {@code duration} (at most an hour), on the coordinator (the leader of the default group):
	 * until it ends or {@link #resumeRebalancing()}, the placement moves nothing but the units of members that left or
	 * died, so that a rolling restart or a maintenance window reshuffles nothing; nodes that join meanwhile get their
	 * share once it ends. Kept in the roster: a new coordinator keeps it. Returns when it ends, by the database's clock.
	 * @throws IllegalArgumentException when this node does not coordinate (ask the leader of {@code default}), or for
	 * a duration of nothing or beyond an hour
	 */
	Instant pauseRebalancing(Duration duration);

	/** Ends a pause of rebalancing at the coordinator's next placement; only the coordinator takes it. */
	void resumeRebalancing();

	/** Health-level facts about this node's contact with the store. */
	MembershipStatus status();

	/**
	 * Database time as this node estimates it (empty before its first contact with the store): for stamping records
	 * that other nodes compare, never a substitute for the lease.
	 */
	Optional<Instant> serverTimeEstimate();

	/**
	 * Runs {@code task} if this node leads {@code group} and is not handing it over, without touching the database; the
	 * task gets the term from {@link LeaderContext#currentTerm()}. A graceful stop or resign waits for the task before
	 * it releases the lease. Returns whether it ran. For work that is not a method ({@code @LeaderOnly} guards methods).
	 */
	boolean runIfLeader(String group, Runnable task);

}
