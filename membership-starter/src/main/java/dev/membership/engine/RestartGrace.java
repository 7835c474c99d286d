package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.membership.liveness.Member;

/**
 * The restart grace ({@code membership.rebalance.restart-grace}): a member that is no longer live but was last seen
 * within the grace, by the database's clock, keeps its place. The placement keeps its units on it and no other node
 * takes them, so that a member restarted under the same node id finds them where it left them; past the grace they
 * move as after any departure. Off (zero), members are taken as they are. Decisions only.
 */
final class RestartGrace {

	private final Duration grace;

	RestartGrace(Duration grace) {
		this.grace = grace;
	}

	boolean isOn() {
		return !this.grace.isZero();
	}

	/**
	 * {@code members} as the placement sees them at database time {@code now}: a member away for less than the grace
	 * counts as live there (the roster itself still says it is not).
	 */
	List<Member> placing(List<Member> members, Instant now) {
		if (!isOn() || members.stream().allMatch(Member::live)) {
			return members;
		}
		List<Member> placing = new ArrayList<>(members.size());
		for (Member m : members) {
			placing.add(isAway(m, now) ? new Member(m.nodeId(), m.incarnation(), m.address(), m.startedAt(),
					m.lastHeartbeat(), m.groups(), true, m.partitions()) : m);
		}
		return placing;
	}

	/** Whether {@code member} is not live but was seen less than the grace before {@code now}. */
	private boolean isAway(Member member, Instant now) {
		return !member.live() && member.lastHeartbeat() != null
				&& member.lastHeartbeat().plus(this.grace).isAfter(now);
	}

}
