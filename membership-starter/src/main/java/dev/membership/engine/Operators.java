package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderInfo;
import dev.membership.liveness.Member;

/**
 * What an operator (or the application) asks of this node, checked before anything changes: a hand-over of a group to
 * a named node, a drain and its undoing, and the steering of the placement, which only the coordinator (the leader of
 * the default group) applies. A request that cannot be carried out is refused with what to do instead.
 */
final class Operators {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	/** The longest pause of rebalancing: a forgotten one must not freeze the placement for good. */
	static final Duration MAX_PAUSE = Duration.ofHours(1);

	private final NodeParts parts;

	private final Supplier<List<Member>> liveMembers;

	Operators(NodeParts parts, Supplier<List<Member>> liveMembers) {
		this.parts = parts;
		this.liveMembers = liveMembers;
	}

	private String nodeId() {
		return this.parts.settings.nodeId();
	}

	void handOver(String group, String to) {
		GroupElection election = this.parts.units.plainGroup(group);
		if (!election.isLeader()) {
			throw new IllegalArgumentException("Node " + nodeId() + " does not lead group '" + group + "'"
					+ leaderOf(group) + ": ask it");
		}
		if (to.equals(nodeId())) {
			throw new IllegalArgumentException("Node " + nodeId() + " leads group '" + group + "' already");
		}
		Member target = member(to);
		if (target == null || !target.groups().contains(group)) {
			throw new IllegalArgumentException("Node '" + to + "' " + ((target == null) ? "is not a live member"
					: "does not compete for group '" + group + "' (or is drained)") + "; live members that do: "
					+ this.liveMembers.get()
						.stream()
						.filter((m) -> m.groups().contains(group) && !m.nodeId().equals(nodeId()))
						.map(Member::nodeId)
						.toList());
		}
		Term term = election.term();
		this.parts.handOver.handTo(election, to);
		this.parts.history.action("handover(" + to + ")", nodeId(), group, null, (term != null) ? term.epoch() : 0);
	}

	void drain(boolean drained) {
		if (this.parts.lifecycle.drained(drained)) {
			log.info(drained ? "Membership node {} drained: it hands over what it holds and takes nothing until "
					+ "undrained" : "Membership node {} undrained: it competes again", nodeId());
			if (drained) {
				this.parts.handOver.drainOut();
			}
			this.parts.history.action(drained ? "drain" : "undrain", nodeId(), MembershipSettings.DEFAULT_GROUP,
					null, 0);
		}
	}

	/** A move or pin of {@code partition} of the partitioned {@code group} of {@code count} partitions. */
	void move(String group, int count, int partition, String to, boolean pin) {
		if (partition < 0 || partition >= count) {
			throw new IllegalArgumentException("Group '" + group + "' has partitions 0 to " + (count - 1) + ", not "
					+ partition);
		}
		Member target = member(to);
		if (target == null || !Assignments.takesPart(target, group, count)) {
			throw new IllegalArgumentException("Node '" + to + "' " + ((target == null) ? "is not a live member"
					: "does not take part in group '" + group + "' with " + count + " partitions (or is drained)"));
		}
		steer(new Steering.Move(group, partition, to, pin));
		this.parts.history.action((pin ? "pin(" : "move(") + to + ")", nodeId(), group, partition, 0);
	}

	void unpin(String group, int count, int partition) {
		if (partition < 0 || partition >= count) {
			throw new IllegalArgumentException("Group '" + group + "' has partitions 0 to " + (count - 1) + ", not "
					+ partition);
		}
		steer(new Steering.Unpin(group, partition));
		this.parts.history.action("unpin", nodeId(), group, partition, 0);
	}

	/** Pauses rebalancing for {@code duration} (at most an hour) from now, by the database's clock. */
	Instant pause(Duration duration) {
		if (duration.isNegative() || duration.isZero() || duration.compareTo(MAX_PAUSE) > 0) {
			throw new IllegalArgumentException("A pause of rebalancing lasts more than nothing and at most "
					+ MAX_PAUSE.toMinutes() + " minutes, not " + duration + " (resume it sooner with resume)");
		}
		Instant until = this.parts.serverClock.estimate().plus(duration);
		steer(new Steering.Pause(until));
		this.parts.history.action("pause(" + duration + ")", nodeId(), MembershipSettings.DEFAULT_GROUP, null, 0);
		return until;
	}

	void resume() {
		steer(new Steering.Resume());
		this.parts.history.action("resume", nodeId(), MembershipSettings.DEFAULT_GROUP, null, 0);
	}

	private void steer(Steering.Directive directive) {
		GroupElection keeper = this.parts.self.keeperGroup();
		if (keeper == null) {
			throw new IllegalArgumentException("Node " + nodeId() + " does not coordinate the placement" + leaderOf(
					MembershipSettings.DEFAULT_GROUP) + " (the leader of group 'default' does): send it there");
		}
		Term term = keeper.term();
		if (term == null || term.isEnding()) {
			throw new IllegalArgumentException("Node " + nodeId() + " is handing the coordination over (the "
					+ "leadership of group 'default'): send it to the next coordinator in a moment");
		}
		log.info("Membership node {} applies an operator's {} at its next placement", nodeId(), directive);
		this.parts.assignments.steering().add(term.epoch(), directive);
	}

	private String leaderOf(String group) {
		return this.parts.units.leader(group, null)
			.filter((l) -> !l.nodeId().equals(nodeId()))
			.map((LeaderInfo l) -> "; " + l.nodeId() + " does (" + l.address() + ")")
			.orElse("; no leader is known");
	}

	private Member member(String nodeId) {
		return this.liveMembers.get().stream().filter((m) -> m.nodeId().equals(nodeId)).findFirst().orElse(null);
	}

}
