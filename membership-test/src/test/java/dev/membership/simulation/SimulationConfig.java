package dev.membership.simulation;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Set;

import dev.membership.spi.MembershipSettings;

/**
 * How one simulation runs. The node settings are the production defaults (renew every 5
 * s, lease 15 s, liveness 10 s, safety margin 1.5 s), in virtual time.
 *
 * @param seed everything random is drawn from it
 * @param nodes how many nodes (0: 2 to 7, from the seed)
 * @param chaos how long faults are injected (virtual time)
 * @param meanFaultGap mean time between two faults
 * @param operationTimeout how long a node waits for the store before it gives up on a
 * call
 * @param maxDrift how far a node's clock rate may be from the server's (the documented
 * bound is 200 ppm)
 * @param safetyMargin null for the default
 * @param drainTimeout how long a graceful hand-over waits for leader-only work (the
 * simulated jobs are shorter)
 * @param defect a deliberate bug in the store, or none
 * @param faults the kinds of fault drawn, each as likely as the others
 * @param faultsFrom when the first fault may come (virtual time): a scenario lets the
 * cluster settle first
 * @param checks the scenario's own invariants, on top of those every run checks
 * @param behindMongos whether the nodes reach the database through a mongos, whose clock
 * is skewed, the whole run
 * @param restartGrace the nodes' restart grace (zero: off)
 */
record SimulationConfig(long seed, int nodes, Duration chaos, Duration meanFaultGap, Duration operationTimeout,
		double maxDrift, Duration safetyMargin, Duration drainTimeout, DefectiveStore.Defect defect,
		List<Simulation.Fault> faults, Duration faultsFrom, Set<Invariant> checks, boolean behindMongos,
		Duration restartGrace) {

	/** The default drift stays within the bound {@code ServerClock} assumes. */
	static final double DOCUMENTED_DRIFT = 199e-6;

	/**
	 * The production code and store as they are, or a deliberately broken variant of
	 * them.
	 */
	enum Variant {

		AS_BUILT, LATE_ACQUISITION_STARTS_A_TERM, LATE_RENEWAL_SHORTENS_THE_LEASE,

		/**
		 * No safety margin, and clocks 2% apart: a hundred times the drift the clock
		 * estimate allows for.
		 */
		NO_SAFETY_MARGIN_AND_DRIFT_BEYOND_THE_BOUND,

		/**
		 * A graceful stop or resign hands over without waiting for running leader-only
		 * work.
		 */
		NO_DRAIN,

		/**
		 * Acquisitions come back without the store's stamp, which shows a jump of its
		 * clock to the acquirer.
		 */
		ACQUISITION_NOT_STAMPED,

		/**
		 * A step-down's failures do not say that a reissue may get through: the renewal
		 * of the interval is lost.
		 */
		STEP_DOWN_FAILURES_NOT_RETRYABLE,

		/**
		 * Behind a mongos, the node samples the router's clock, skewed from the one that
		 * stamps the writes.
		 */
		HELLO_BEHIND_MONGOS,

		/**
		 * Operators' actions alone (hand-overs, drains, pins, pauses), and they hand over
		 * without the drain.
		 */
		OPERATORS_WITHOUT_DRAIN,

		/**
		 * Members catch up on the roster by changes that say no partition moved: they
		 * keep stale placements, of partitions and of plain groups' leaderships.
		 */
		PLACEMENT_CHANGES_LOST,

		/**
		 * A release does not pass the scheduled job's last fire on: its successor runs it
		 * again.
		 */
		FIRES_NOT_PASSED_ON,

		/**
		 * An acquisition does not bring the lease's record of the fires: what a failover
		 * missed is lost silently.
		 */
		FIRES_NOT_CAUGHT_UP,

		/**
		 * The job's runner loses a fire now and then: the job waits for it, skipping
		 * every later fire as an overlap, on a leader that stays one.
		 */
		FIRES_WEDGED;

		/**
		 * The runs that show the defect: the scenario its invariant belongs to, or the
		 * standard run.
		 */
		SimulationConfig config(long seed) {
			return switch (this) {
				case STEP_DOWN_FAILURES_NOT_RETRYABLE -> apply(stepDowns(seed));
				case HELLO_BEHIND_MONGOS -> apply(behindMongos(seed));
				case OPERATORS_WITHOUT_DRAIN -> apply(operators(seed));
				default -> apply(standard(seed));
			};
		}

		/**
		 * The invariants the defect must trip: a violation of any other (a liveness one,
		 * say) does not count.
		 */
		Set<Invariant> trips() {
			return switch (this) {
				case AS_BUILT -> Set.of();
				case LATE_ACQUISITION_STARTS_A_TERM, LATE_RENEWAL_SHORTENS_THE_LEASE, ACQUISITION_NOT_STAMPED ->
					// the beliefs' own checks, which come before a fire run twice by two
					// believers: a variant that breaks mutual exclusion is caught as
					// such,
					// not by the fires' accounting
					Set.of(Invariant.ONE_BELIEVER, Invariant.BELIEF_MATCHES_LEASE, Invariant.BELIEF_ENDS_BEFORE_LEASE,
							Invariant.EPOCHS_RISE);
				// a clock misjudged beyond the bound also begins a fire before its
				// instant by the database's clock, which it breaks as such
				case NO_SAFETY_MARGIN_AND_DRIFT_BEYOND_THE_BOUND -> Set.of(Invariant.ONE_BELIEVER,
						Invariant.BELIEF_MATCHES_LEASE, Invariant.BELIEF_ENDS_BEFORE_LEASE, Invariant.FIRE_NOT_EARLY);
				case NO_DRAIN, OPERATORS_WITHOUT_DRAIN -> Set.of(Invariant.DRAINED_BEFORE_HANDOVER);
				case STEP_DOWN_FAILURES_NOT_RETRYABLE -> Set.of(Invariant.STABLE_THROUGH_STEP_DOWNS);
				case HELLO_BEHIND_MONGOS -> Set.of(Invariant.NO_DISTRUST_BEHIND_MONGOS);
				// the placement also places each plain group's leadership: a node that
				// keeps a stale one never competes for a group now placed on it
				case PLACEMENT_CHANGES_LOST -> Set.of(Invariant.PARTITIONS_PLACED, Invariant.LEADERS_AFTER_HEAL);
				case FIRES_NOT_PASSED_ON -> Set.of(Invariant.FIRE_ONCE);
				// a term that starts from nothing loses what a failover missed, or runs
				// again what it ran itself
				case FIRES_NOT_CAUGHT_UP -> Set.of(Invariant.FIRES_ACCOUNTED, Invariant.FIRE_ONCE);
				case FIRES_WEDGED -> Set.of(Invariant.FIRES_KEEP_RUNNING);
			};
		}

		SimulationConfig apply(SimulationConfig config) {
			return switch (this) {
				case AS_BUILT -> config;
				case LATE_ACQUISITION_STARTS_A_TERM ->
					config.withDefect(DefectiveStore.Defect.LATE_ACQUISITION_STARTS_A_TERM);
				case LATE_RENEWAL_SHORTENS_THE_LEASE ->
					config.withDefect(DefectiveStore.Defect.LATE_RENEWAL_SHORTENS_THE_LEASE);
				case NO_SAFETY_MARGIN_AND_DRIFT_BEYOND_THE_BOUND -> config.withSafetyMargin(Duration.ZERO, 0.02);
				case NO_DRAIN, OPERATORS_WITHOUT_DRAIN -> config.withDrainTimeout(Duration.ZERO);
				case ACQUISITION_NOT_STAMPED -> config.withDefect(DefectiveStore.Defect.ACQUISITION_NOT_STAMPED);
				case STEP_DOWN_FAILURES_NOT_RETRYABLE ->
					config.withDefect(DefectiveStore.Defect.STEP_DOWN_FAILURES_NOT_RETRYABLE);
				case HELLO_BEHIND_MONGOS -> config.withDefect(DefectiveStore.Defect.HELLO_BEHIND_MONGOS);
				case PLACEMENT_CHANGES_LOST -> config.withDefect(DefectiveStore.Defect.PLACEMENT_CHANGES_LOST);
				case FIRES_NOT_PASSED_ON -> config.withDefect(DefectiveStore.Defect.RELEASE_DROPS_FIRES);
				case FIRES_NOT_CAUGHT_UP -> config.withDefect(DefectiveStore.Defect.ACQUISITION_DROPS_FIRES);
				case FIRES_WEDGED -> config.withDefect(DefectiveStore.Defect.RUNNER_LOSES_FIRES);
			};
		}

	}

	static SimulationConfig standard(long seed) {
		return new SimulationConfig(seed, 0, Duration.ofMinutes(30), Duration.ofSeconds(8), Duration.ofSeconds(2),
				DOCUMENTED_DRIFT, null, Duration.ofSeconds(2), DefectiveStore.Defect.NONE,
				List.of(Simulation.Fault.values()), Duration.ZERO, Set.of(), false, Duration.ZERO);
	}

	/**
	 * Every fault, with a restart grace of 10 s: a node stopped or crashed comes back
	 * under its id within the grace or after it (a fault lasts 0.1 to 25 s), and its
	 * partitions wait for it meanwhile.
	 */
	static SimulationConfig restarts(long seed) {
		SimulationConfig standard = standard(seed);
		return new SimulationConfig(seed, 0, Duration.ofMinutes(20), standard.meanFaultGap, standard.operationTimeout,
				DOCUMENTED_DRIFT, null, standard.drainTimeout, DefectiveStore.Defect.NONE, standard.faults,
				Duration.ZERO, Set.of(), false, Duration.ofSeconds(10));
	}

	/**
	 * Operators' actions alone: hand-overs, drains, pins and pauses of rebalancing, each
	 * through the drain.
	 */
	static SimulationConfig operators(long seed) {
		return standard(seed).withFaults(List.of(Simulation.Fault.HAND_OVER, Simulation.Fault.DRAIN,
				Simulation.Fault.PIN, Simulation.Fault.PAUSE_REBALANCING));
	}

	/**
	 * The faults of runs before step-downs and mongos clocks were simulated: a seed drawn
	 * this way runs as it ran then (the regression seeds).
	 */
	static SimulationConfig beforeStepDowns(long seed) {
		return standard(seed).withFaults(Arrays.stream(Simulation.Fault.values())
			// the kinds of fault there were then
			.filter((f) -> f.ordinal() < Simulation.Fault.STEP_DOWN.ordinal())
			.toList());
	}

	/**
	 * Step-downs alone (the primary away for 0.5 to 3 s: less than the lease less two
	 * intervals, and than the operation timeout at its default, the renewal interval),
	 * once the cluster settled: no renewal may fail, no belief begin or end through them.
	 */
	static SimulationConfig stepDowns(long seed) {
		// the operation timeout at its default, the renewal interval: a call waits that
		// long for the new primary; 18 minutes of step-downs, some 90 of them, so that a
		// broken reissue shows in one run of forty or so (in ten minutes, one in seventy:
		// 300 seeds then missed it about once in seventy runs of SimulatorCanFailTests)
		return new SimulationConfig(seed, 0, Duration.ofMinutes(20), Duration.ofSeconds(12), Duration.ofSeconds(5),
				DOCUMENTED_DRIFT, null, Duration.ofSeconds(2), DefectiveStore.Defect.NONE,
				List.of(Simulation.Fault.STEP_DOWN), Duration.ofMinutes(2), Set.of(Invariant.STABLE_THROUGH_STEP_DOWNS),
				false, Duration.ZERO);
	}

	/**
	 * Behind a mongos whose clock is off the stamps' by up to 5 s, the whole run, through
	 * every fault but the database clock's own jumps: no node may see a jump.
	 */
	static SimulationConfig behindMongos(long seed) {
		return new SimulationConfig(seed, 0, Duration.ofMinutes(15), Duration.ofSeconds(8), Duration.ofSeconds(2),
				DOCUMENTED_DRIFT, null, Duration.ofSeconds(2), DefectiveStore.Defect.NONE,
				Arrays.stream(Simulation.Fault.values())
					.filter((f) -> f != Simulation.Fault.CLOCK_JUMP && f != Simulation.Fault.MONGOS_CLOCK)
					.toList(),
				Duration.ZERO, Set.of(Invariant.NO_DISTRUST_BEHIND_MONGOS), true, Duration.ZERO);
	}

	/**
	 * Crashes among step-downs, behind a skewed mongos: each crashed holder's units taken
	 * over in time.
	 */
	static SimulationConfig crashesThroughStepDownsBehindMongos(long seed) {
		return new SimulationConfig(seed, 0, Duration.ofMinutes(15), Duration.ofSeconds(10), Duration.ofSeconds(2),
				DOCUMENTED_DRIFT, null, Duration.ofSeconds(2), DefectiveStore.Defect.NONE,
				List.of(Simulation.Fault.STEP_DOWN, Simulation.Fault.CRASH), Duration.ofMinutes(1),
				Set.of(Invariant.CRASH_TAKEN_OVER), true, Duration.ZERO);
	}

	private SimulationConfig with(DefectiveStore.Defect defect, Duration margin, double drift, Duration drain,
			Duration chaos, List<Simulation.Fault> faults) {
		return new SimulationConfig(this.seed, this.nodes, chaos, this.meanFaultGap, this.operationTimeout, drift,
				margin, drain, defect, faults, this.faultsFrom, this.checks, this.behindMongos, this.restartGrace);
	}

	SimulationConfig withSafetyMargin(Duration margin, double drift) {
		return with(this.defect, margin, drift, this.drainTimeout, this.chaos, this.faults);
	}

	SimulationConfig withDefect(DefectiveStore.Defect broken) {
		return with(broken, this.safetyMargin, this.maxDrift, this.drainTimeout, this.chaos, this.faults);
	}

	SimulationConfig withChaos(Duration duration) {
		return with(this.defect, this.safetyMargin, this.maxDrift, this.drainTimeout, duration, this.faults);
	}

	SimulationConfig withDrainTimeout(Duration timeout) {
		return with(this.defect, this.safetyMargin, this.maxDrift, timeout, this.chaos, this.faults);
	}

	SimulationConfig withFaults(List<Simulation.Fault> kinds) {
		return with(this.defect, this.safetyMargin, this.maxDrift, this.drainTimeout, this.chaos, kinds);
	}

	MembershipSettings settings(String nodeId, Collection<String> groups, int partitions) {
		MembershipSettings.Builder builder = MembershipSettings.builder(nodeId);
		if (partitions > 1) {
			builder.partitions(Simulation.PARTITIONED, partitions);
		}
		return builder.groups(Set.copyOf(groups))
			.safetyMargin(this.safetyMargin)
			.drainTimeout(this.drainTimeout)
			.restartGrace(this.restartGrace)
			.build();
	}

}
