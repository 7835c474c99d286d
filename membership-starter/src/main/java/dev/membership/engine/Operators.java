package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.history.OperatorRecord;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.Lifecycle.DrainCause;
import dev.membership.engine.placement.Assignments;
import dev.membership.engine.placement.Steering;
import dev.membership.engine.term.Term;
import dev.membership.leadership.LeaderInfo;
import dev.membership.liveness.Member;
import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Drain;
import dev.membership.operations.DrainResult;
import dev.membership.operations.HandOver;
import dev.membership.operations.HandOverResult;
import dev.membership.operations.Move;
import dev.membership.operations.OperationRequest;
import dev.membership.operations.Pause;
import dev.membership.operations.PauseResult;
import dev.membership.operations.Pin;
import dev.membership.operations.PlacementResult;
import dev.membership.operations.Release;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.operations.ResignResult;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;
import dev.membership.spi.MembershipSettings;

/**
 * What an operator (or the application) asks of this node, checked before anything
 * changes: a resign or release, a hand-over of a group to a named node, a drain and its
 * undoing, and the steering of the placement, which only the coordinator (the leader of
 * the default group) applies. A request that cannot be carried out is refused with what
 * to do instead. Each, carried out or refused, is recorded with who asked
 * ({@link OperatorRecord}).
 */
final class Operators implements ClusterOperations {

	/**
	 * The longest pause of rebalancing: a forgotten one must not freeze the placement for
	 * good.
	 */
	static final Duration MAX_PAUSE = Duration.ofHours(1);

	/**
	 * Who drains the node while the application refuses traffic
	 * ({@code membership.follow-readiness}).
	 */
	static final Requester READINESS = Requester.of("readiness");

	private final NodeParts parts;

	private final Supplier<List<Member>> liveMembers;

	private final OperatorRecord record;

	Operators(NodeParts parts, Supplier<List<Member>> liveMembers) {
		this.parts = parts;
		this.liveMembers = liveMembers;
		this.record = new OperatorRecord(parts.settings.nodeId(), parts.history);
	}

	private String nodeId() {
		return this.parts.settings.nodeId();
	}

	@Override
	public ResignResult resign(Resign request) {
		return this.record.carry(request, null, request.group(), null, () -> {
			GroupElection election = this.parts.units.plainGroup(request.group());
			Term term = election.term();
			// a second resign resigns nothing
			boolean leading = term != null && term.isValid() && !term.isEnding();
			this.parts.handOver.resign(election);
			return OperatorRecord.done(new ResignResult(request.group(), null, leading), leading ? term.epoch() : 0);
		});
	}

	@Override
	public ResignResult release(Release request) {
		return this.record.carry(request, null, request.group(), request.partition(), () -> {
			GroupElection unit = this.parts.units.partition(request.group(), request.partition());
			Term term = unit.term();
			boolean owning = term != null && term.isValid() && !term.isEnding();
			if (owning) {
				this.parts.handOver.resign(unit);
			}
			return OperatorRecord.done(new ResignResult(request.group(), request.partition(), owning),
					owning ? term.epoch() : 0);
		});
	}

	@Override
	public DrainResult drain(Drain request) {
		return drain(request.requestedBy(), "operator#", DrainCause.OPERATOR, true);
	}

	@Override
	public DrainResult undrain(Undrain request) {
		return drain(request.requestedBy(), "operator#", DrainCause.OPERATOR, false);
	}

	/**
	 * The application's readiness drains ({@code accepting} false) or undrains the node:
	 * recorded as its own.
	 */
	void followReadiness(boolean accepting) {
		if (this.parts.lifecycle.isDrainedBy(DrainCause.READINESS) != accepting) {
			return; // the same readiness again: nothing to record
		}
		drain(READINESS, "readiness#", DrainCause.READINESS, !accepting);
	}

	private DrainResult drain(Requester by, String prefix, DrainCause cause, boolean on) {
		String job = prefix + (on ? "drain" : "undrain");
		return this.record.carry(by, job, job, MembershipSettings.DEFAULT_GROUP, null, () -> {
			List<String> holding = on ? holding() : List.of();
			Lifecycle.Drains change = this.parts.lifecycle.drain(cause, on);
			if (!change.before() && change.after()) {
				this.parts.handOver.drainOut();
			}
			String state = change.after()
					? ((change.before() == change.after()) ? "stays drained"
							: "drained: it " + "hands over what it holds and takes nothing until undrained")
					: (change.before() ? "undrained: it competes again" : "was not drained");
			if (!on && change.after()) {
				state += " (" + change.holding() + " still drains it)";
			}
			return new OperatorRecord.Done<>(new DrainResult(nodeId(), change.after(), holding), 0, state);
		});
	}

	@Override
	public HandOverResult handOver(HandOver request) {
		String group = request.group();
		String to = request.to();
		return this.record.carry(request, to, group, null, () -> {
			GroupElection election = this.parts.units.plainGroup(group);
			if (!election.isLeader()) {
				throw new IllegalArgumentException(
						"Node " + nodeId() + " does not lead group '" + group + "'" + leaderOf(group) + ": ask it");
			}
			if (to.equals(nodeId())) {
				throw new IllegalArgumentException("Node " + nodeId() + " leads group '" + group + "' already");
			}
			Member target = member(to);
			if (target == null || !target.groups().contains(group)) {
				throw new IllegalArgumentException("Node '" + to + "' "
						+ ((target == null) ? "is not a live member"
								: "does not compete for group '" + group + "' (or is drained)")
						+ "; live members that do: "
						+ this.liveMembers.get()
							.stream()
							.filter((m) -> m.groups().contains(group) && !m.nodeId().equals(nodeId()))
							.map(Member::nodeId)
							.toList());
			}
			Term term = election.term();
			this.parts.handOver.handTo(election, to);
			return OperatorRecord.done(new HandOverResult(group, nodeId(), to), epoch(term));
		});
	}

	@Override
	public PlacementResult move(Move request) {
		return place(request, request.group(), request.partition(), request.to(), false);
	}

	@Override
	public PlacementResult pin(Pin request) {
		return place(request, request.group(), request.partition(), request.to(), true);
	}

	private PlacementResult place(OperationRequest request, String group, int partition, String to, boolean pin) {
		return this.record.carry(request, to, group, partition, () -> {
			int count = partitions(group, partition);
			Member target = member(to);
			if (target == null || !Assignments.takesPart(target, group, count)) {
				throw new IllegalArgumentException("Node '" + to + "' " + ((target == null) ? "is not a live member"
						: "does not take part in group '" + group + "' with " + count + " partitions (or is drained)"));
			}
			steer(new Steering.Move(group, partition, to, pin));
			return OperatorRecord.done(new PlacementResult(group, partition, to, pin), 0);
		});
	}

	@Override
	public PlacementResult unpin(Unpin request) {
		return this.record.carry(request, null, request.group(), request.partition(), () -> {
			partitions(request.group(), request.partition());
			steer(new Steering.Unpin(request.group(), request.partition()));
			return OperatorRecord.done(new PlacementResult(request.group(), request.partition(), null, false), 0);
		});
	}

	@Override
	public PauseResult pause(Pause request) {
		Duration duration = request.duration();
		// no target in the name: each length would make a name of its own
		return this.record.carry(request, null, MembershipSettings.DEFAULT_GROUP, null, () -> {
			if (duration.isNegative() || duration.isZero() || duration.compareTo(MAX_PAUSE) > 0) {
				throw new IllegalArgumentException("A pause of rebalancing lasts more than nothing and at most "
						+ MAX_PAUSE.toMinutes() + " minutes, not " + duration + " (resume it sooner with resume)");
			}
			Instant until = this.parts.serverClock.estimate().plus(duration);
			steer(new Steering.Pause(until));
			return OperatorRecord.done(new PauseResult(until), 0);
		});
	}

	@Override
	public PauseResult resume(Resume request) {
		return this.record.carry(request, null, MembershipSettings.DEFAULT_GROUP, null, () -> {
			steer(new Steering.Resume());
			return OperatorRecord.done(new PauseResult(null), 0);
		});
	}

	/**
	 * The count of the partitioned {@code group}, which has {@code partition}; refused
	 * otherwise.
	 */
	private int partitions(String group, int partition) {
		return this.parts.units.partition(group, partition).unit().partitions();
	}

	private void steer(Steering.Directive directive) {
		GroupElection keeper = this.parts.self.keeperGroup();
		if (keeper == null) {
			throw new IllegalArgumentException("Node " + nodeId() + " does not coordinate the placement"
					+ leaderOf(MembershipSettings.DEFAULT_GROUP)
					+ " (the leader of group 'default' does): send it there");
		}
		Term term = keeper.term();
		if (term == null || term.isEnding()) {
			throw new IllegalArgumentException("Node " + nodeId() + " is handing the coordination over (the "
					+ "leadership of group 'default'): send it to the next coordinator in a moment");
		}
		this.parts.assignments.steering().add(term.epoch(), directive);
	}

	/** What this node holds: the plain groups it leads, and its partitions' leases. */
	private List<String> holding() {
		List<String> held = new ArrayList<>();
		for (GroupElection unit : this.parts.units.all()) {
			Term term = unit.term();
			if (term != null && term.isValid() && !term.isEnding()) {
				held.add(unit.name());
			}
		}
		return List.copyOf(new TreeSet<>(held));
	}

	private String leaderOf(String group) {
		return this.parts.units.leader(group, null)
			.filter((l) -> !l.nodeId().equals(nodeId()))
			.map((LeaderInfo l) -> "; " + l.nodeId() + " does (" + l.address() + ")")
			.orElse("; no leader is known");
	}

	private @Nullable Member member(String nodeId) {
		return this.liveMembers.get().stream().filter((m) -> m.nodeId().equals(nodeId)).findFirst().orElse(null);
	}

	private static long epoch(@Nullable Term term) {
		return (term != null) ? term.epoch() : 0;
	}

}
