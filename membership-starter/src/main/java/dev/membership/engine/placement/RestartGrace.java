package dev.membership.engine.placement;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;

/**
 * The restart grace ({@code membership.rebalance.restart-grace}): a member that is no
 * longer live but was last seen within the grace, by the database's clock, keeps its
 * place. The keeper places over the live members and puts back on it the partitions it
 * had (it gets no others), and no other node takes them, so that a member restarted under
 * the same node id finds them where it left them; past the grace they move as after any
 * departure. Off (zero), members are taken as they are. Decisions only.
 */
public final class RestartGrace {

	private final Duration grace;

	/** The last member list's {@link #placing}; from any thread. */
	private volatile @Nullable Placing last;

	public RestartGrace(Duration grace) {
		this.grace = grace;
	}

	boolean isOn() {
		return !this.grace.isZero();
	}

	/**
	 * {@code members} as a node deciding whether to try for a unit sees them at database
	 * time {@code now}: a member away for less than the grace counts as live (the roster
	 * itself still says it is not), so nobody takes what the placement keeps on it.
	 */
	public List<Member> placing(List<Member> members, Instant now) {
		if (!isOn()) {
			return members;
		}
		Placing last = this.last;
		if (last != null && last.members() == members && !now.isBefore(last.from()) && now.isBefore(last.until())) {
			// the same list while nobody's grace ends: asked once per unit each interval
			return last.placing();
		}
		List<Member> placing = new ArrayList<>(members.size());
		Instant until = Instant.MAX;
		boolean anyAway = false;
		for (Member m : members) {
			boolean away = isAway(m, now);
			placing.add(away ? new Member(m.nodeId(), m.incarnation(), m.address(), m.startedAt(), m.lastHeartbeat(),
					m.groups(), true, m.partitions()) : m);
			if (away) {
				anyAway = true;
				Instant ends = m.lastHeartbeat().plus(this.grace);
				until = ends.isBefore(until) ? ends : until;
			}
		}
		Placing made = new Placing(members, now, until, anyAway ? List.copyOf(placing) : members);
		this.last = made;
		return made.placing();
	}

	/**
	 * {@link #placing} of one member list, as it stays from {@code from} until a member's
	 * grace ends.
	 */
	private record Placing(List<Member> members, Instant from, Instant until, List<Member> placing) {

	}

	/**
	 * The node ids away for less than the grace at {@code now}: not live, seen within it,
	 * and not live under another incarnation either.
	 */
	public Set<String> away(List<Member> members, Instant now) {
		if (!isOn()) {
			return Set.of();
		}
		Set<String> away = new HashSet<>();
		members.stream().filter((m) -> isAway(m, now)).forEach((m) -> away.add(m.nodeId()));
		members.stream().filter(Member::live).forEach((m) -> away.remove(m.nodeId()));
		return away;
	}

	/**
	 * {@code placed} (made over the live members) with each partition that
	 * {@code previous} put on a member now {@code away} put back on it: an away member
	 * keeps the partitions it had, and gets no others. Plain groups are left as placed (a
	 * leadership does not wait).
	 */
	public static Map<String, GroupAssignment> keepForAway(Map<String, GroupAssignment> placed,
			Map<String, GroupAssignment> previous, Set<String> away) {
		if (away.isEmpty()) {
			return placed;
		}
		Map<String, GroupAssignment> kept = new LinkedHashMap<>(placed);
		placed.forEach((group, assignment) -> {
			GroupAssignment before = previous.get(group);
			if (assignment.partitions() < 2 || before == null || before.partitions() != assignment.partitions()) {
				return;
			}
			List<@Nullable String> owners = new ArrayList<>(assignment.owners());
			boolean changed = false;
			for (int p = 0; p < owners.size(); p++) {
				String was = before.owner(p);
				if (was != null && away.contains(was) && !was.equals(owners.get(p))) {
					owners.set(p, was);
					changed = true;
				}
			}
			if (changed) {
				kept.put(group, new GroupAssignment(assignment.partitions(), owners, assignment.pins(),
						assignment.pausedUntil()));
			}
		});
		return kept;
	}

	/**
	 * Whether {@code member} is not live but was seen less than the grace before
	 * {@code now}.
	 */
	private boolean isAway(Member member, Instant now) {
		return !member.live() && member.lastHeartbeat() != null && member.lastHeartbeat().plus(this.grace).isAfter(now);
	}

}
