package dev.membership.spi;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;

/**
 * The member list as the keeper of the roster (the leader of the default group) last
 * wrote it. {@code version} grows by one at every write, so members read the roster only
 * when it changed, and then only its recent {@code changes} unless they are too far
 * behind; {@code epoch} is the keeper's term. {@code assignments}: where the keeper, as
 * the cluster's coordinator, placed each group's units of work ({@link GroupAssignment});
 * members follow it by the changes' {@link RosterChange#placed()} too. Times are the
 * store's; a live member's {@code lastHeartbeat} is as of the write, not as of now. A
 * roster read without its member list (a member's read of an interval) has
 * {@code members} and {@code assignments} empty.
 */
public record Roster(long version, @Nullable String keeperNodeId, long epoch, @Nullable Instant writtenAt,
		List<Member> members, List<RosterChange> changes, Map<String, GroupAssignment> assignments) {

	/**
	 * The roster document's id among the lease documents; no group may have it as a name.
	 */
	public static final String ID = "_roster";

	public Roster {
		members = (members != null) ? List.copyOf(members) : List.of();
		changes = (changes != null) ? List.copyOf(changes) : List.of();
		assignments = (assignments != null) ? Map.copyOf(assignments) : Map.of();
	}

	/**
	 * {@code members} as a store that keeps times to the millisecond (MongoDB's dates,
	 * PostgreSQL's {@code timestamptz} as the stores write them) gives them back: what a
	 * store writes so that a member read back equals the one written.
	 */
	public static List<Member> toMillis(List<Member> members) {
		List<Member> kept = new ArrayList<>(members.size());
		for (Member m : members) {
			kept.add(new Member(m.nodeId(), m.incarnation(), m.address(), toMillis(m.startedAt()),
					toMillis(m.lastHeartbeat()), m.groups(), m.live(), m.partitions()));
		}
		return kept;
	}

	private static @Nullable Instant toMillis(@Nullable Instant instant) {
		return (instant != null) ? Instant.ofEpochMilli(instant.toEpochMilli()) : null;
	}

	/** A roster without placements. */
	public Roster(long version, @Nullable String keeperNodeId, long epoch, @Nullable Instant writtenAt,
			List<Member> members, List<RosterChange> changes) {
		this(version, keeperNodeId, epoch, writtenAt, members, changes, Map.of());
	}

}
