package dev.membership;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
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

	/**
	 * The current term when this node leads {@code group}: whether, and under which epoch, it leads. Leader code itself
	 * gets its term from {@link LeaderContext#currentTerm()}.
	 */
	Optional<LeadershipTerm> currentTerm(String group);

	/** The leader of {@code group} as this node last saw it (may be this node). */
	Optional<LeaderInfo> leader(String group);

	/** Every member in the last roster this node took (itself always live), live ones first, oldest first. */
	List<Member> members();

	List<Member> liveMembers();

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

	/** Makes this node compete for {@code group} too (idempotent). */
	void join(String group);

	/**
	 * Gives up leadership of {@code group}: no new leader-only work of the group starts from now on, work that asked to
	 * be interrupted is, and once the rest has finished (at most the drain timeout) the belief ends and the lease is
	 * released, so that another node takes over; this node then stays out of the race for two renewal intervals.
	 * Returns at once; with no leader-only work running, the belief has ended when it returns. Does nothing when this
	 * node does not lead the group.
	 */
	void resign(String group);

	/** Health-level facts about this node's contact with the store. */
	MembershipStatus status();

	/**
	 * Database time as this node estimates it (empty before its first contact with the store): for stamping records
	 * that other nodes compare, never a substitute for the lease.
	 */
	Optional<Instant> serverTimeEstimate();

	/**
	 * Registers leader-only work named {@code name} under this node's current term of {@code group}, as
	 * {@link LeadershipTerm#tryBegin(String)} does: null when this node does not lead the group or is handing it over.
	 * One in-memory check; for guards of your own (what {@code @LeaderOnly} and {@link #runIfLeader} use). Close the
	 * execution on the same thread when the work ends.
	 */
	default LeadershipTerm.@Nullable Execution tryBegin(String group, String name) {
		LeadershipTerm term = currentTerm(group).orElse(null);
		return (term != null) ? term.tryBegin(name) : null;
	}

	/** As {@link #tryBegin(String, String)}, and interrupts this thread when the term ends or is handed over. */
	default LeadershipTerm.@Nullable Execution tryBeginInterruptible(String group, String name) {
		LeadershipTerm term = currentTerm(group).orElse(null);
		return (term != null) ? term.tryBeginInterruptible(name) : null;
	}

	/**
	 * Runs {@code task} if this node leads {@code group} and is not handing it over, without touching the database; the
	 * task gets the term from {@link LeaderContext#currentTerm()}. A graceful stop or resign waits for the task before
	 * it releases the lease. Returns whether it ran.
	 */
	default boolean runIfLeader(String group, Runnable task) {
		LeadershipTerm.Execution execution = tryBegin(group, "runIfLeader(" + group + ")");
		if (execution == null) {
			return false;
		}
		try (execution) {
			task.run();
		}
		return true;
	}

}
