package dev.membership.simulation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.MembershipNode;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.operations.Drain;
import dev.membership.operations.Resign;
import dev.membership.operations.Undrain;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;
import dev.membership.test.VirtualScheduler;

/**
 * One seeded run of the production node code: 2 to 7 nodes on virtual time, a simulated
 * store, and faults drawn from the seed, with {@link SafetyInvariants} checked after
 * every step. Phases: chaos (faults), heal (no new faults, every node back: a leader must
 * exist within lease + interval + one operation timeout), stop (every node stops,
 * gracefully or not: no lease may stay with a stopped node longer than the lease). The
 * same seed replays the same run.
 */
final class Simulation {

	static final String PARTITIONED = "tenants";

	static final Instant SERVER_EPOCH = Instant.parse("2026-01-01T00:00:00Z");

	enum Fault {

		CRASH, STOP, PAUSE, RESIGN, CUT_OFF, OUTAGE, SLOW, LOSSY, HINTS_DELAYED,

		/**
		 * A second process started with a node id already in use, by mistake, for a
		 * while.
		 */
		DUPLICATE_ID,

		/** A failover to a primary whose clock is up to 30 s ahead or behind. */
		CLOCK_JUMP,

		/**
		 * The primary steps down for 0.5 to 3 s (maintenance, a rolling upgrade): calls
		 * in flight fail with a retryable error, some after they applied; calls issued
		 * meanwhile wait for the new primary.
		 */
		STEP_DOWN,

		/**
		 * For a while the nodes reach the database through a mongos whose clock is up to
		 * 5 s off the stamps'.
		 */
		MONGOS_CLOCK,

		/** An operator hands a plain group its leader leads to another running node. */
		HAND_OVER,

		/**
		 * An operator drains a node for a while: it hands everything over and takes
		 * nothing.
		 */
		DRAIN,

		/** An operator moves a partition to a running node, pinned there for a while. */
		PIN,

		/**
		 * An operator pauses rebalancing for a while: the placement moves only departed
		 * members' units.
		 */
		PAUSE_REBALANCING;

		/** What an operator does, through the drain: no belief ends without it. */
		boolean graceful() {
			return this == RESIGN || this == STOP || this == HINTS_DELAYED || this == HAND_OVER || this == DRAIN
					|| this == PIN || this == PAUSE_REBALANCING;
		}

	}

	private final SimulationConfig config;

	private final Random random;

	private final VirtualScheduler scheduler = new VirtualScheduler();

	private final Network network;

	private final DefectiveStore store;

	private final SafetyInvariants invariants;

	/**
	 * Until when a fault may still have ended a belief without its drain (virtual time).
	 */
	private long disruptedUntil = Long.MIN_VALUE;

	private final LeaderOnlyWork work = new LeaderOnlyWork(this::disruptedUntil);

	/** The scheduled job of group {@code default}, and the checks of its fires. */
	private final FireChecks fires;

	/**
	 * Whether the lease checks apply at this step (not while an estimate still follows a
	 * jumped clock).
	 */
	private boolean clockSettled = true;

	/**
	 * A fire's violation seen during a step, reported after that step's belief checks: a
	 * broken election that makes a second believer begin a fire is caught as two
	 * believers, the invariant it breaks, not by the fires' accounting.
	 */
	private @Nullable String fireViolation;

	private final ScenarioChecks scenario;

	/**
	 * When the faults healed (virtual time), and how many steps the lease checks were off
	 * after a clock jump.
	 */
	private long healedAt = -1;

	private long unsettledSteps;

	private final MembershipSettings settings;

	private final List<String> groups;

	/** What operators do among the faults: hand-overs, drains, pins, pauses. */
	private final OperatorFaults operators;

	/** The partitions of group "tenants" in this run, 0 for none. */
	private final int partitions;

	private final List<SimulatedNode> nodes = new ArrayList<>();

	/** Second processes with a node id already in use (the DUPLICATE_ID fault). */
	private final List<SimulatedNode> twins = new ArrayList<>();

	private final Map<Fault, Integer> faults = new EnumMap<>(Fault.class);

	private final ArrayDeque<TraceLine> trace = new ArrayDeque<>();

	private final DatabaseClock databaseClock;

	private double hintLoss = 0.05;

	private long hintDelayMaxNanos = 50 * Network.MILLI;

	private String livenessViolation;

	/**
	 * Once the faults heal, the fault plan's pending actions (restarts, resumes, network
	 * repairs) are void.
	 */
	private boolean healed;

	Simulation(SimulationConfig config) {
		this.config = config;
		this.random = new Random(config.seed());
		this.network = new Network(this.random, config.operationTimeout().toNanos());
		this.databaseClock = new DatabaseClock(SERVER_EPOCH.plusMillis(this.random.nextInt(1_000_000)),
				this.scheduler::now);
		this.store = new DefectiveStore(this::serverTime, config.defect(), this::noteLazily);
		this.invariants = new SafetyInvariants(this.store, this::noteLazily, this.scheduler::now);
		this.store.reportViolationsTo(this.invariants::fail);
		this.store.stepDowns(() -> this.network.stepDownMeets(this.scheduler.now()),
				config.defect() != DefectiveStore.Defect.STEP_DOWN_FAILURES_NOT_RETRYABLE, this.random::nextBoolean);
		int nodeCount = (config.nodes() > 0) ? config.nodes() : 2 + this.random.nextInt(6);
		this.groups = (this.random.nextInt(3) == 0) ? List.of("default", "reports") : List.of("default");
		this.partitions = 2 + this.random.nextInt(7); // a partitioned group in every run
		this.settings = config.settings("n0", this.groups, this.partitions);
		// a random of its own: the fire policy and run lengths leave the fault plan's
		// draws as they were
		this.fires = new FireChecks(new Random(config.seed() ^ 0x5EEDF15EL), this::serverTime, this.scheduler::now,
				() -> this.clockSettled && this.scheduler.now()
						- this.databaseClock.lastJumpAt() > this.settings.leaseDuration().multipliedBy(2).toNanos(),
				() -> this.databaseClock.backwardWithin(this.settings.leaseDuration().multipliedBy(4).toNanos()),
				this.store, (what) -> this.fireViolation = (this.fireViolation != null) ? this.fireViolation : what,
				this::noteLazily);
		this.operators = new OperatorFaults(this.random, this.groups, this.partitions, this::runningNodes, this::note);
		this.scenario = new ScenarioChecks(config.checks(), this.scheduler::now, this.invariants::fail,
				config.faultsFrom().toNanos(), config.chaos().toNanos(),
				this.settings.leaseDuration().plus(this.settings.renewalInterval().multipliedBy(2)),
				this.invariants::lastTermStart);
		if (config.behindMongos()) {
			behindMongos();
		}
		if (config.checks().contains(Invariant.STABLE_THROUGH_STEP_DOWNS)) {
			// step-downs alone: no slow call or lost reply besides (one lost renewal of a
			// node that only renews can age its liveness past the window, at the default
			// timings, and the keeper moves its units)
			this.network.slowShare = 0;
			this.network.lostRequestShare = 0;
			this.network.lostReplyShare = 0;
		}
		for (int i = 1; i <= nodeCount; i++) {
			this.nodes.add(new SimulatedNode("n" + i));
		}
	}

	/**
	 * The server's clock is virtual time; its origin is arbitrary, and a failover may
	 * move it (CLOCK_JUMP).
	 */
	private Instant serverTime() {
		return this.databaseClock.now();
	}

	SimulationResult run() {
		try (AutoCloseable notes = this.fires.notesMade().collect()) {
			return runChecked();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Until when a fault may have ended {@code node}'s belief without its drain: any
	 * fault's window, or that node's latest call that timed out, and its leases after.
	 */
	private long disruptedUntil(String node) {
		long timedOut = this.network.lastTimeout(node);
		return (timedOut == Long.MIN_VALUE) ? this.disruptedUntil : Math.max(this.disruptedUntil, timedOut
				+ this.settings.leaseDuration().multipliedBy(2).plus(this.settings.renewalInterval()).toNanos());
	}

	private SimulationResult runChecked() {
		for (SimulatedNode node : this.nodes) {
			// a fault may have started it already: one process per node id
			this.scheduler.after(nanos(this.random.nextInt(1000)), null, node::restart);
		}
		long chaosEnd = this.config.chaos().toNanos();
		this.scheduler.after(this.config.faultsFrom().toNanos(), null, () -> scheduleNextFault(chaosEnd));
		if (runUntil(chaosEnd)) {
			heal();
			long healedAt = this.scheduler.now();
			this.healedAt = healedAt;
			// a lease written before a jump backwards stays up to that much longer
			long bound = this.settings.leaseDuration()
				.plus(this.settings.renewalInterval())
				.plus(this.config.operationTimeout())
				.plus(this.databaseClock.largestBackwardJump())
				.toNanos();
			if (runUntilLeaders(healedAt, healedAt + bound) && undoOperators()
					&& runUntilRostersAgree(this.scheduler.now()) && runUntilPartitionsPlaced(this.scheduler.now())) {
				stopAll();
				runUntil(this.scheduler.now() + this.settings.leaseDuration().multipliedBy(2).toNanos());
				checkLeasesAfterStop();
				// once every stop wrote what its history held
				this.fires.checkAccounted();
				if (this.fireViolation != null) {
					this.invariants.fail(this.fireViolation);
				}
			}
		}
		String violation = (this.invariants.violation() != null) ? this.invariants.violation()
				: (this.work.violation() != null) ? this.work.violation() : this.livenessViolation;
		return new SimulationResult(this.config.seed(), this.nodes.size(), this.groups.size(),
				this.invariants.transitions(), this.work.runs(), this.work.overlapsAfterFaults(), this.fires.began(),
				this.scheduler.steps(), Duration.ofNanos(this.scheduler.now()), this.faults, this.databaseClock.jumps(),
				this.unsettledSteps, violation, this.trace.stream().map(TraceLine::toString).toList());
	}

	private void checkInvariants() {
		List<MembershipNode> running = liveNodes();
		Duration tail = this.settings.leaseDuration()
			.plus(this.settings.renewalInterval())
			.plus(this.config.operationTimeout());
		boolean settled = this.databaseClock.settled(running, tail);
		this.clockSettled = settled;
		this.fires.step();
		this.invariants.check(running, units(), serverTime(), this::clockRate, settled);
		if (this.fireViolation != null) {
			this.invariants.fail(this.fireViolation);
		}
		this.scenario.check((int) this.nodes.stream().filter((n) -> n.node != null && !n.stopping).count());
		if (!settled) {
			this.unsettledSteps++;
			// a node's estimate follows the new clock at its next sample: once every node
			// runs again, the checks come back within an interval, two timeouts and the
			// tail; the one-believer check never stops
			long bound = tail.plus(this.settings.renewalInterval())
				.plus(this.config.operationTimeout().multipliedBy(2))
				.plus(this.settings.leaseDuration())
				.toNanos();
			if (this.healedAt >= 0 && this.scheduler.now() - this.healedAt > bound) {
				this.invariants.fail(Invariant.CLOCK_SETTLES.violation(
						"the lease checks are still off " + Duration.ofNanos(this.scheduler.now() - this.healedAt)
								+ " after the heal: a node's estimate " + "has not followed the database's clock"));
			}
		}
	}

	/** Runs every event up to {@code until}; false at the first violation. */
	private boolean runUntil(long until) {
		while (this.scheduler.step(until)) {
			checkInvariants();
			if (this.invariants.violation() != null || this.work.violation() != null) {
				note("VIOLATION " + ((this.invariants.violation() != null) ? this.invariants.violation()
						: this.work.violation()));
				return false;
			}
		}
		return true;
	}

	private boolean runUntilLeaders(long healedAt, long deadline) {
		return runUntilHolds(this::everyGroupLed, deadline,
				() -> Invariant.LEADERS_AFTER_HEAL
					.violation("no leader of every group within " + Duration.ofNanos(deadline - healedAt)
							+ " after the faults healed; groups led: " + ledGroups()));
	}

	/**
	 * Once every group has a leader, and so the roster a keeper: every node lists exactly
	 * the running processes as live members within the liveness window (a crashed
	 * leader's renewals count until then) plus three intervals of the keeper's term. A
	 * leader seen at the heal may still lose its term (it was cut off, or the database's
	 * clock jumped): then the bound runs from its successor's term, and while nobody
	 * leads, only the cap runs: at most one lease later, plus as much as the database's
	 * clock went back (a lease renewed before a backward jump holds that much longer in
	 * the new clock, and nobody may take it before). Likewise a renewal or heartbeat
	 * stamped before a jump backwards reads that much more recent in the new clock, and
	 * the keeper counts a crashed process live until the window has passed in the new
	 * clock: the bound runs from no earlier than when the clock reads past its latest
	 * reading before the heal.
	 */
	private boolean runUntilRostersAgree(long from) {
		long bound = this.settings.livenessWindow()
			.plus(this.settings.renewalInterval().multipliedBy(3))
			.plus(this.config.operationTimeout().multipliedBy(2))
			.toNanos();
		long cap = from + bound + this.settings.leaseDuration().toNanos() + bound
				+ this.databaseClock.largestBackwardJump().toNanos();
		long caughtUp = from + this.databaseClock.behindLatest().toNanos();
		LongSupplier deadline = () -> Math.min(cap, ledGroups().contains(MembershipSettings.DEFAULT_GROUP)
				? Math.max(caughtUp, this.invariants.lastTermStart(MembershipSettings.DEFAULT_GROUP)) + bound : cap);
		return runUntilHolds(this::rostersAgree, deadline,
				() -> Invariant.ROSTERS_AGREE.violation("member lists still differ from the running nodes "
						+ Duration.ofNanos(bound) + " after the keeper's term began: " + rosterDisagreement()));
	}

	/**
	 * Runs events until {@code condition} holds; false at a violation, or at
	 * {@code deadline} (a liveness one).
	 */
	private boolean runUntilHolds(java.util.function.BooleanSupplier condition, long deadline,
			Supplier<String> violation) {
		return runUntilHolds(condition, () -> deadline, violation);
	}

	private boolean runUntilHolds(java.util.function.BooleanSupplier condition, LongSupplier deadline,
			Supplier<String> violation) {
		while (!condition.getAsBoolean()) {
			if (!this.scheduler.step(deadline.getAsLong())) {
				this.livenessViolation = violation.get();
				note("VIOLATION " + this.livenessViolation);
				return false;
			}
			checkInvariants();
			if (this.invariants.violation() != null || this.work.violation() != null) {
				return false;
			}
		}
		return true;
	}

	private boolean rostersAgree() {
		return rosterDisagreement() == null;
	}

	private String rosterDisagreement() {
		Set<String> running = new TreeSet<>();
		liveNodes().forEach((n) -> running.add(n.nodeId() + "/" + n.incarnation()));
		for (MembershipNode node : liveNodes()) {
			Set<String> listed = new TreeSet<>();
			node.liveMembers().forEach((m) -> listed.add(m.nodeId() + "/" + m.incarnation()));
			if (!listed.equals(running)) {
				dev.membership.spi.Roster stored = this.store.findRoster().orElse(null);
				return node.nodeId() + " lists " + listed + ", running " + running + "; the store's roster: "
						+ ((stored != null) ? "version " + stored.version() + " by " + stored.keeperNodeId() + " epoch "
								+ stored.epoch() + " " + stored.members() : "none")
						+ "; node documents: " + this.store.findNodes() + " at " + serverTime();
			}
		}
		return null;
	}

	private double clockRate(MembershipNode node) {
		for (SimulatedNode slot : this.nodes) {
			if (slot.node == node) {
				return slot.runtime.rate();
			}
		}
		for (SimulatedNode twin : this.twins) {
			if (twin.node == node) {
				return twin.runtime.rate();
			}
		}
		throw new IllegalStateException("not a node of this simulation: " + node.nodeId());
	}

	/**
	 * Every unit: the plain groups, and the partitions of "tenants" (leases "tenants#p").
	 */
	private List<String> units() {
		List<String> units = new ArrayList<>(this.groups);
		for (int p = 0; p < this.partitions; p++) {
			units.add(PARTITIONED + "#" + p);
		}
		return units;
	}

	/**
	 * Once the rosters agree, the coordinator places the partitions over the running
	 * nodes: each owned by one of them, their counts within one of each other, every node
	 * seeing the placement as stored, within a lease (a previous owner's lease to run
	 * out) and four intervals (the placement written, read, the moves drained and taken),
	 * plus two operation timeouts and a backward jump.
	 */
	private boolean runUntilPartitionsPlaced(long from) {
		if (this.partitions == 0) {
			return true;
		}
		long deadline = from + this.settings.leaseDuration()
			.plus(this.settings.renewalInterval().multipliedBy(4))
			.plus(this.config.operationTimeout().multipliedBy(2))
			.plus(this.databaseClock.largestBackwardJump())
			.toNanos();
		return runUntilHolds(this::partitionsPlaced, deadline,
				() -> Invariant.PARTITIONS_PLACED.violation("partitions not placed over the running nodes "
						+ Duration.ofNanos(deadline - from) + " after the rosters agreed: " + ownedCounts()
						+ "; placements as each node sees them: " + placements()));
	}

	private boolean partitionsPlaced() {
		Map<String, Integer> counts = ownedCounts();
		int owned = counts.values().stream().mapToInt(Integer::intValue).sum();
		int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
		return owned == this.partitions && max - min <= 1 && placementsAgree();
	}

	/**
	 * Every running node sees the placement the roster holds (followers by its changes,
	 * or by reading it whole).
	 */
	private boolean placementsAgree() {
		Map<Integer, String> stored = new java.util.TreeMap<>();
		this.store.findRoster().map((roster) -> roster.assignments().get(PARTITIONED)).ifPresent((placed) -> {
			for (int p = 0; p < placed.partitions(); p++) {
				if (placed.owner(p) != null) {
					stored.put(p, placed.owner(p));
				}
			}
		});
		return liveNodes().stream().allMatch((node) -> node.partitions(PARTITIONED).placement().equals(stored));
	}

	private Map<String, Object> placements() {
		Map<String, Object> seen = new java.util.TreeMap<>();
		for (MembershipNode node : liveNodes()) {
			seen.put(node.nodeId(), node.partitions(PARTITIONED).placement() + " owns "
					+ node.partitions(PARTITIONED).owned() + (node.status().drained() ? " drained" : ""));
		}
		return seen;
	}

	private Map<String, Integer> ownedCounts() {
		Map<String, Integer> counts = new java.util.TreeMap<>();
		for (MembershipNode node : liveNodes()) {
			counts.merge(node.nodeId(), node.partitions(PARTITIONED).owned().size(), Integer::sum);
		}
		return counts;
	}

	/**
	 * What {@code node} believes of {@code unit}: its term of the group, or of the
	 * partition.
	 */
	static Optional<LeadershipTerm> belief(MembershipNode node, String unit) {
		int at = unit.indexOf('#');
		return (at < 0) ? node.currentTerm(unit)
				: node.partitionTerm(unit.substring(0, at), Integer.parseInt(unit.substring(at + 1)));
	}

	private boolean everyGroupLed() {
		return ledGroups().size() == this.groups.size();
	}

	private List<String> ledGroups() {
		return this.groups.stream().filter((g) -> liveNodes().stream().anyMatch((n) -> n.isLeader(g))).toList();
	}

	/**
	 * The processes running now that are not stopping, twins aside: those an operator
	 * acts on.
	 */
	private List<MembershipNode> runningNodes() {
		return this.nodes.stream().filter((n) -> n.node != null && !n.stopping).map((n) -> n.node).toList();
	}

	private List<MembershipNode> liveNodes() {
		List<MembershipNode> live = new ArrayList<>(this.nodes.size() + this.twins.size());
		for (SimulatedNode node : this.nodes) {
			if (node.node != null) {
				live.add(node.node);
			}
		}
		for (SimulatedNode twin : this.twins) {
			if (twin.node != null) {
				live.add(twin.node);
			}
		}
		return live;
	}

	// ---------------------------------------------------------------- faults

	private void scheduleNextFault(long chaosEnd) {
		long gap = (long) (-Math.log(1 - this.random.nextDouble()) * this.config.meanFaultGap().toNanos());
		if (this.config.checks().contains(Invariant.STABLE_THROUGH_STEP_DOWNS)) {
			// one step-down at a time, as in a real one
			gap += this.settings.leaseDuration().multipliedBy(2).toNanos();
		}
		if (this.scheduler.now() + gap >= chaosEnd) {
			return;
		}
		this.scheduler.after(gap, null, () -> {
			injectFault();
			scheduleNextFault(chaosEnd);
		});
	}

	private void injectFault() {
		List<Fault> kinds = this.config.faults();
		Fault fault = kinds.get(this.random.nextInt(kinds.size()));
		SimulatedNode target = pickTarget();
		long duration = nanos(100 + this.random.nextInt(25_000));
		this.faults.merge(fault, 1, Integer::sum);
		note(fault + " " + target.id + " for " + Duration.ofNanos(duration));
		if (this.healed) {
			return;
		}
		if (!fault.graceful()) {
			// a belief may end without its drain until the fault is over and its leases
			// ran out
			this.disruptedUntil = Math.max(this.disruptedUntil, this.scheduler.now() + duration
					+ this.settings.leaseDuration().multipliedBy(2).plus(this.settings.renewalInterval()).toNanos());
		}
		switch (fault) {
			case CRASH -> {
				if (target.node != null) {
					MembershipNode crashing = target.node;
					this.scenario.crashed(target.id,
							units().stream().filter((unit) -> belief(crashing, unit).isPresent()).toList());
				}
				target.crash();
				// the take-over check wants the others to take over, not the node back
				// under its id: a process that returns under the same id distrusts
				// expiries for a lease, and the placement waits for it
				later(this.config.checks().contains(Invariant.CRASH_TAKEN_OVER)
						? Math.max(duration, this.settings.leaseDuration().multipliedBy(3).toNanos()) : duration,
						target::restart);
			}
			case STOP -> {
				target.stop();
				later(duration, target::restart);
			}
			case PAUSE -> {
				target.pause();
				later(duration, target::resume);
			}
			case RESIGN -> {
				if (target.node != null) {
					target.node.operations()
						.resign(new Resign(this.groups.get(this.random.nextInt(this.groups.size())),
								OperatorFaults.BY));
				}
			}
			case CUT_OFF -> {
				this.network.cutOff.add(target.id);
				later(duration, () -> this.network.cutOff.remove(target.id));
			}
			case OUTAGE -> {
				this.network.storeDown = true;
				later(duration, () -> this.network.storeDown = false);
			}
			case SLOW -> {
				this.network.slowShare = 0.3;
				this.network.slowMaxNanos = this.config.operationTimeout().multipliedBy(4).toNanos();
				later(duration, () -> this.network.slowShare = 0.01);
			}
			case LOSSY -> {
				this.network.lostRequestShare = 0.2;
				this.network.lostReplyShare = 0.2;
				later(duration, () -> {
					this.network.lostRequestShare = 0.001;
					this.network.lostReplyShare = 0.001;
				});
			}
			case DUPLICATE_ID -> {
				SimulatedNode twin = new SimulatedNode(target.id, true);
				this.twins.add(twin);
				twin.start();
				later(duration, () -> {
					twin.crash();
					this.twins.remove(twin);
				});
			}
			case CLOCK_JUMP -> {
				Instant before = serverTime();
				note("the database's clock jumps by "
						+ this.databaseClock.jump(this.random, this.settings.leaseDuration()));
				this.fires.clockJumped(before, serverTime());
			}
			case STEP_DOWN -> {
				long down = nanos(500 + this.random.nextInt(2_500));
				note("the primary steps down for " + Duration.ofNanos(down));
				this.network.stepDown(this.scheduler.now(), this.scheduler.now() + down);
				this.scenario.steppedDown(this.settings.renewalInterval());
			}
			case MONGOS_CLOCK -> {
				behindMongos();
				later(duration, () -> this.store.behindMongos(null));
			}
			case HAND_OVER -> {
				if (target.node != null) {
					this.operators.handOver(target.node);
				}
			}
			case DRAIN -> {
				MembershipNode drained = target.node;
				if (drained != null) {
					drained.operations().drain(new Drain(OperatorFaults.BY));
					later(duration, () -> drained.operations().undrain(new Undrain(OperatorFaults.BY)));
				}
			}
			case PIN -> {
				int partition = this.operators.pin();
				later(duration, () -> this.operators.unpin(partition));
			}
			case PAUSE_REBALANCING -> {
				this.operators.pause(duration);
				later(duration, this.operators::resume);
			}
			case HINTS_DELAYED -> {
				this.hintLoss = 0.3;
				this.hintDelayMaxNanos = nanos(20_000);
				later(duration, () -> {
					this.hintLoss = 0.05;
					this.hintDelayMaxNanos = 50 * Network.MILLI;
				});
			}
		}
	}

	/**
	 * From now on the nodes reach the database through a mongos whose clock is 1 to 5 s
	 * off the stamps'.
	 */
	private void behindMongos() {
		long skew = nanos(1_000 + this.random.nextInt(4_000)) * (this.random.nextBoolean() ? 1 : -1);
		note("behind a mongos whose clock is " + Duration.ofNanos(skew) + " off");
		this.store.behindMongos(Duration.ofNanos(skew));
	}

	/** Undoes a fault later, unless everything healed meanwhile. */
	private void later(long delay, Runnable action) {
		this.scheduler.after(delay, null, () -> {
			if (!this.healed) {
				action.run();
			}
		});
	}

	/** Mostly a leader: that is where faults make transitions. */
	private SimulatedNode pickTarget() {
		if (this.random.nextInt(10) < 7) {
			String group = this.groups.get(this.random.nextInt(this.groups.size()));
			for (SimulatedNode node : this.nodes) {
				if (node.node != null && node.node.isLeader(group)) {
					return node;
				}
			}
		}
		return this.nodes.get(this.random.nextInt(this.nodes.size()));
	}

	private void heal() {
		note("HEAL");
		this.healed = true;
		this.network.heal();
		this.hintLoss = 0;
		this.hintDelayMaxNanos = 10 * Network.MILLI;
		this.twins.forEach(SimulatedNode::crash);
		this.twins.clear();
		for (SimulatedNode node : this.nodes) {
			node.resume();
			if (node.node == null || node.stopping) {
				node.restart();
			}
		}
		this.operators.undoAll();
	}

	/**
	 * After the heal, the operators' pins and pause come off at a coordinator that is not
	 * handing its role over (one may take them and lose the role before it writes them):
	 * asked again each interval until the roster shows none, within ten intervals.
	 */
	private boolean undoOperators() {
		long interval = this.settings.renewalInterval().toNanos();
		for (int attempt = 0; attempt < 10; attempt++) {
			this.operators.undoAll();
			if (!runUntil(this.scheduler.now() + interval)) {
				return false;
			}
			boolean steered = this.store.findRoster()
				.map((roster) -> roster.assignments()
					.values()
					.stream()
					.anyMatch((a) -> a.hasPins() || a.pausedUntil() != null))
				.orElse(false);
			if (!steered) {
				return true;
			}
		}
		this.livenessViolation = Invariant.PARTITIONS_PLACED
			.violation("the operators' pins and pause did not come " + "off within ten intervals after the heal");
		return false;
	}

	private void stopAll() {
		note("STOP ALL");
		for (SimulatedNode node : this.nodes) {
			if (this.random.nextBoolean()) {
				node.stop();
			}
			else {
				node.crash();
			}
		}
	}

	/**
	 * No lease stays with a stopped node longer than the lease (plus the clock estimate's
	 * uncertainty).
	 */
	private void checkLeasesAfterStop() {
		long slack = this.config.operationTimeout().toNanos() * 2 + nanos(5);
		for (String group : units()) {
			LeaseRecord lease = this.store.findLease(group).orElse(null);
			if (lease == null || lease.holder() == null) {
				continue;
			}
			for (SimulatedNode node : this.nodes) {
				if (node.lastIncarnation != null && node.lastIncarnation.equals(lease.holder().incarnation())) {
					Instant limit = this.databaseClock.latestAt(node.stoppedAt)
						.plusNanos(this.settings.leaseDuration().toNanos() + slack);
					if (lease.expiresAt().isAfter(limit)) {
						this.livenessViolation = Invariant.LEASES_AFTER_STOP
							.violation("the lease of group " + group + " stays with stopped " + node.id + " until "
									+ lease.expiresAt() + ", after " + limit);
					}
				}
			}
		}
	}

	// ---------------------------------------------------------------- hints

	/**
	 * Carries a node's news to the others, as the production channel does: a release that
	 * names its successor to the successor alone, and to the others, without the name,
	 * only when the successor could not be told (not running, its copy lost, or paused: a
	 * post then times out, though it may have arrived); the rest to everyone. Each copy
	 * may be lost, delayed or doubled.
	 */
	private void hint(String from, Object event) {
		Object toOthers = event;
		if (event instanceof LeaseReleasedEvent released && released.successor() != null) {
			SimulatedNode successor = this.nodes.stream()
				.filter((n) -> n.id.equals(released.successor()) && !n.id.equals(from) && n.node != null)
				.findFirst()
				.orElse(null);
			if (successor != null && deliver(successor, event) && !successor.runtime.isPaused()) {
				return;
			}
			toOthers = new LeaseReleasedEvent(released.observerNodeId(), released.group(), released.epoch(), null);
		}
		for (SimulatedNode node : this.nodes) {
			if (!node.id.equals(from)
					&& (toOthers == event || !node.id.equals(((LeaseReleasedEvent) event).successor()))) {
				deliver(node, toOthers);
			}
		}
	}

	/**
	 * The keeper's notice that roster {@code version} moves work for the node it is
	 * delivered to.
	 */
	private record RosterNotice(long version) {
	}

	/**
	 * Delivers {@code event} to {@code node} after a random delay, maybe twice; false
	 * when it is lost.
	 */
	private boolean deliver(SimulatedNode node, Object event) {
		if (this.random.nextDouble() < this.hintLoss) {
			return false;
		}
		int copies = (this.random.nextInt(20) == 0) ? 2 : 1;
		for (int i = 0; i < copies; i++) {
			long delay = (long) (this.random.nextDouble() * this.hintDelayMaxNanos);
			this.scheduler.after(delay, null, () -> node.receive(event));
		}
		return true;
	}

	private void note(String what) {
		noteLazily(() -> what);
	}

	/**
	 * Keeps the last lines only, and formats them only if asked: most runs never print
	 * their trace.
	 */
	private void noteLazily(Supplier<String> what) {
		if (this.trace.size() == Integer.getInteger("membership.simulation.trace", 200)) {
			this.trace.removeFirst();
		}
		this.trace.addLast(new TraceLine(this.scheduler.now(), what));
	}

	private record TraceLine(long at, Supplier<String> what) {

		@Override
		public String toString() {
			return Duration.ofNanos(this.at) + " " + this.what.get();
		}

	}

	private static long nanos(long millis) {
		return millis * Network.MILLI;
	}

	/** One node id: its current incarnation, if any, and how it goes and comes back. */
	private final class SimulatedNode {

		final String id;

		/**
		 * A second process with this id: runs no leader-only work of its own, so the
		 * work's books stay by node id.
		 */
		final boolean twin;

		MembershipNode node;

		SimulatedRuntime runtime;

		/**
		 * Where the node hears others' leadership news (its notice channel), null until
		 * it starts.
		 */
		NoticeReceiver notices;

		boolean stopping;

		/**
		 * The partitions whose graceful hand-over began here, by {@code group#p/epoch},
		 * until their release.
		 */
		final Map<String, RevocationReason> handingOver = new java.util.HashMap<>();

		String lastIncarnation;

		long stoppedAt;

		SimulatedNode(String id) {
			this(id, false);
		}

		SimulatedNode(String id, boolean twin) {
			this.id = id;
			this.twin = twin;
		}

		void start() {
			double drift = (Simulation.this.random.nextDouble() * 2 - 1) * Simulation.this.config.maxDrift();
			this.runtime = new SimulatedRuntime(Simulation.this.scheduler, Simulation.this.network, this.id, 1 + drift,
					Simulation.this.random.nextLong() >>> 2);
			MembershipNode[] self = new MembershipNode[1];
			self[0] = MembershipNode
				.builder(Simulation.this.config.settings(this.id, Simulation.this.groups, Simulation.this.partitions),
						Simulation.this.store)
				.runtime(this.runtime)
				.clock(this.runtime.clock())
				.observer(ScenarioChecks.both(Simulation.this.invariants, Simulation.this.scenario))
				.metrics(Simulation.this.scenario.metricsOf(this.id))
				.runHistory(Simulation.this.fires.history(), 10_000)
				.advertisedAddress("127.0.0.1:" + (8000 + this.id.hashCode() % 1000))
				.noticeChannel(new NoticeChannel() {

					@Override
					public void connect(NoticeReceiver receiver) {
						SimulatedNode.this.notices = receiver;
					}

					@Override
					public void letGo(Map<String, Long> leases, String successor) {
						// what LeadershipNotices sends: what the node let go of, as it
						// says it
						leases.forEach((lease, epoch) -> Simulation.this.hint(SimulatedNode.this.id,
								new LeaseReleasedEvent(SimulatedNode.this.id, lease, epoch, successor)));
					}

					@Override
					public void rosterChanged(long version, Set<String> nodes) {
						// what LeadershipNotices sends the nodes a roster moves work for,
						// lost, late or twice
						Simulation.this.nodes.stream()
							.filter((n) -> nodes.contains(n.id))
							.forEach((n) -> deliver(n, new RosterNotice(version)));
					}

				})
				.reaction((event) -> {
					// what LeadershipNotices sends: the leader as the elected node sees
					// it
					if (event instanceof LeaderElectedEvent elected) {
						Simulation.this.fires.termBegan(this.id, elected.group());
						self[0].leader(elected.group()).ifPresent((leader) -> Simulation.this.hint(this.id, leader));
					}
					else if (event instanceof LeaderRevokedEvent revoked) {
						note(this.id + " revoked " + revoked.group() + " epoch " + revoked.epoch() + ": "
								+ revoked.reason());
						Simulation.this.work.termEnded(revoked.group(), revoked.epoch(), revoked.reason());
						Simulation.this.fires.termEnded(revoked.group(), revoked.epoch());
					}
					else if (event instanceof PartitionReleasedEvent released) {
						String unit = released.group() + "#" + released.partition();
						// a graceful hand-over counts as one once it released the lease:
						// its drain ended then
						RevocationReason graceful = this.handingOver.remove(unit + "/" + released.epoch());
						if (graceful != null) {
							Simulation.this.work.termEnded(unit, released.epoch(), graceful);
						}
					}
					else if (event instanceof PartitionRevokedEvent revoked) {
						// said when a graceful drain begins (the belief may still end by
						// its deadline meanwhile, a fault), and again with the fault's
						// reason if one overtakes the drain
						String unit = revoked.group() + "#" + revoked.partition();
						RevocationReason reason = revoked.reason();
						if (reason == RevocationReason.MOVED || reason == RevocationReason.RESIGNED
								|| reason == RevocationReason.SHUTDOWN || reason == RevocationReason.DRAINED) {
							this.handingOver.put(unit + "/" + revoked.epoch(), reason);
						}
						else {
							this.handingOver.remove(unit + "/" + revoked.epoch());
							Simulation.this.work.termEnded(unit, revoked.epoch(), reason);
						}
					}
				})
				.build();
			this.node = self[0];
			this.stopping = false;
			Simulation.this.scenario.nodeStarted();
			this.lastIncarnation = this.node.incarnation();
			note(this.id + (this.twin ? " starts a second process" : " starts"));
			this.node.start();
			if (!this.twin) {
				scheduleWork(this.node, this.runtime);
				MembershipNode owner = this.node;
				Simulation.this.fires.schedule(owner, this.runtime.application(), () -> this.node == owner);
			}
		}

		/**
		 * Now and then, a short leader-only job on the application's thread (paused with
		 * the node).
		 */
		private void scheduleWork(MembershipNode owner, SimulatedRuntime lanes) {
			Random random = Simulation.this.random;
			lanes.application().schedule(() -> {
				if (this.node != owner) {
					return;
				}
				List<String> units = units();
				String group = units.get(random.nextInt(units.size()));
				LeadershipTerm term = belief(owner, group).orElse(null);
				LeadershipTerm.Execution run = (term != null) ? owner.tryBegin(term, "housekeeping", false) : null;
				if (run != null) {
					Simulation.this.work.began(this.id, group, run.term().epoch(), Simulation.this.scheduler.now());
					lanes.application().schedule(() -> {
						if (this.node == owner) {
							Simulation.this.work.ended(this.id, group);
						}
						run.close();
					}, nanos(50 + random.nextInt(1450)));
				}
				scheduleWork(owner, lanes);
			}, nanos(200 + random.nextInt(1800)));
		}

		void crash() {
			if (this.node != null) {
				note(this.id + " halts");
				this.node.halt();
				if (!this.twin) {
					Simulation.this.work.crashed(this.id);
					Simulation.this.fires.crashed(this.id, this.lastIncarnation);
				}
				else {
					Simulation.this.fires.notesMade().ended(this.id, null);
				}
				this.node = null;
				this.stoppedAt = Simulation.this.scheduler.now();
			}
		}

		void stop() {
			if (this.node != null && !this.stopping) {
				this.stopping = true;
				MembershipNode stopped = this.node;
				// like SIGTERM: handled by the process once it runs (not while it is
				// paused)
				this.runtime.application()
					.execute(() -> stopped.stopAsync(Simulation.this.settings.leaseDuration()).thenRun(() -> {
						note(this.id + " stopped");
						if (this.node == stopped) {
							// the process is gone, and its work with it (a run's end is
							// told only while it runs)
							Simulation.this.work.crashed(this.id);
							Simulation.this.fires.crashed(this.id, this.lastIncarnation);
							this.node = null;
							this.stoppedAt = Simulation.this.scheduler.now();
						}
					}));
			}
		}

		void restart() {
			if (this.node != null && this.stopping) {
				crash(); // still stopping: give up on it
			}
			if (this.node == null) {
				start();
			}
		}

		void pause() {
			if (this.runtime != null) {
				this.runtime.pause();
			}
		}

		void resume() {
			if (this.runtime != null) {
				this.runtime.resume();
			}
		}

		void receive(Object event) {
			NoticeReceiver target = this.notices;
			if (this.node == null || target == null || this.stopping) {
				return;
			}
			if (event instanceof LeaseReleasedEvent released) {
				target.leaseReleased(released.group(), released.epoch(), released.observerNodeId(),
						released.successor());
			}
			else if (event instanceof LeaderInfo leader) {
				target.leaderElected(leader);
			}
			else if (event instanceof RosterNotice roster) {
				target.rosterChanged(roster.version());
			}
		}

	}

}
