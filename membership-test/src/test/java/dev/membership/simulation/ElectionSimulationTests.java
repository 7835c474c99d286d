package dev.membership.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import ch.qos.logback.classic.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The production election code under the deterministic simulator: many seeds, each a run
 * of 2 to 7 nodes with faults drawn from the seed, every invariant checked after every
 * step. A failure prints its seed; replay it with
 * {@code -Dtest=ElectionSimulationTests#replay -Dmembership.simulation.seed=<seed>}. Soak
 * with {@code -Dtest=ElectionSimulationTests#soak -Dmembership.simulation.soak=10000000}
 * (transitions; seeds from {@code membership.simulation.seed}, threads from
 * {@code membership.simulation.threads}).
 */
@ExtendWith(QuietMembershipLogs.class)
class ElectionSimulationTests {

	private static final long CI_TRANSITIONS = 100_000;

	private static final Duration CI_BUDGET = Duration.ofSeconds(90);

	@Test
	void noViolationOverAHundredThousandFaultedTransitions() throws Exception {
		long firstSeed = Long.getLong("membership.simulation.seed", System.nanoTime());
		Summary summary = simulate(firstSeed, CI_TRANSITIONS, CI_BUDGET, 2);
		System.out.println(summary);
		assertThat(summary.failures.isEmpty()).withFailMessage(summary::toString).isTrue();
		assertThat(summary.transitions.get()).as("transitions simulated within " + CI_BUDGET)
			.isGreaterThanOrEqualTo(CI_TRANSITIONS);
		ranWork(summary);
	}

	/**
	 * The work the invariants are about ran: a simulation with no leader-only run or no
	 * scheduled fire would pass every check of them (a fire's accounting passes when
	 * nothing fired).
	 */
	private static void ranWork(Summary summary) {
		assertThat(summary.leaderOnlyRuns.get()).as("leader-only runs in %s", summary).isPositive();
		assertThat(summary.scheduledFires.get()).as("scheduled fires run in %s", summary).isPositive();
	}

	/**
	 * Seeds that once ended in a violation, kept as cheap regression runs (a later change
	 * of the protocol may send them elsewhere, so they prove little alone):
	 * 15490555895780, a partition's renewal confirmed by a sample taken after a heartbeat
	 * had shown the database's clock jump, so its expiry was written in the old clock;
	 * 11167087822408, the roster's liveness bound; 34460608900017 and 35903936978210, a
	 * node whose document a twin of its id had taken while it led a plain group, kept out
	 * of the partitions' placement for minutes (the roster knew it from its leases alone,
	 * and it did not write its document again).
	 */
	@Test
	void seedsThatOnceFoundAViolationStayClean() {
		for (long seed : new long[] { 15490555895780L, 11167087822408L, 34460608900017L, 35903936978210L }) {
			// as they were drawn then: with today's kinds of fault a seed runs elsewhere
			SimulationResult result = new Simulation(SimulationConfig.beforeStepDowns(seed)).run();
			assertThat(result.violation()).as(result.summary()).isNull();
		}
	}

	/**
	 * Seeds that found a violation once the operators' actions joined the faults:
	 * 11132616047365, a coordinator that lost its role with an operator's pin still
	 * pending applied it when it coordinated again, terms later (now a directive lives
	 * only as long as the term that took it); 10936648511806 (behind a mongos), a renewal
	 * of all partitions that landed late, after the next one, stamped the lease again,
	 * and the read that confirmed the next renewal took that stamp for its own: a clock
	 * jump that was none (now a late renewal changes nothing); 15194908914054, an
	 * operator's drain asked while the node was paused reached its loop after the
	 * partition's term had ended and the next had begun, and put that next term into
	 * hand-over on the old one's behalf, where nothing ended it: the partition stayed on
	 * the node, renewed, for good (now a hand-over applies to its own term only);
	 * 90000000001764, a new coordinator whose follower's view of the placement missed its
	 * predecessor's last write (the operator's pins taken off) wrote the pins back in its
	 * first roster (now a new term's first write starts from the roster as stored).
	 */
	@Test
	void seedsFoundWithTheOperatorsActionsStayClean() {
		SimulationResult pinned = new Simulation(SimulationConfig.standard(11132616047365L)).run();
		assertThat(pinned.violation()).as(pinned.summary()).isNull();
		SimulationResult drained = new Simulation(SimulationConfig.standard(15194908914054L)).run();
		assertThat(drained.violation()).as(drained.summary()).isNull();
		SimulationResult unpinned = new Simulation(SimulationConfig.standard(90000000001764L)).run();
		assertThat(unpinned.violation()).as(unpinned.summary()).isNull();
		SimulationResult late = new Simulation(SimulationConfig.behindMongos(10936648511806L)).run();
		assertThat(late.violation()).as(late.summary()).isNull();
	}

	/**
	 * Seeds that found a violation once a strict fire's failed record stopped wedging its
	 * job (its next fires ran, and their renewals with them): 18553418612382 (a fire
	 * begun 750 ms before its instant) and 18572501504030 (behind a mongos, a jump that
	 * was none). A strict fire renews its lease alone, between the renewal of all leases
	 * and the read that confirms it; the store keeps the later expiry and stamps the
	 * lease's {@code renewedAt} again, and the read took that stamp for the batch's own:
	 * a clock sample 0.76 s and 1.55 s off, by which the next fire's timer was armed
	 * early (now a lease renewed alone since the batch was sent, or failed within a lease
	 * before it, is never its sample).
	 */
	@Test
	void seedsFoundWithTheStrictFiresRenewalsStayClean() {
		SimulationResult early = new Simulation(SimulationConfig.standard(18553418612382L)).run();
		assertThat(early.violation()).as(early.summary()).isNull();
		SimulationResult jump = new Simulation(SimulationConfig.behindMongos(18572501504030L)).run();
		assertThat(jump.violation()).as(jump.summary()).isNull();
	}

	/**
	 * Seeds found while fires learned to be owed: 26780755419150, a release that owed its
	 * successor the next fire skipped one that had waited for the last run and was
	 * dropped as the term ended (now only the very next fire after the record is owed);
	 * 2026120753679, two reads that confirm a node's renewals lost to the network's
	 * chance ended its terms by their deadline, without a drain, as they must, and the
	 * checker, which knew only injected faults, called the overlap that followed
	 * unexcused (now a node's timed-out call excuses it as a fault does); 2026120790736,
	 * a node whose earlier term owed a STRICT fire led again after another term began it,
	 * and took its own owed mark over the lease's: the fire ran twice (now a mark a node
	 * owed never outranks the lease's record of the same fire).
	 */
	@Test
	void seedsFoundWithOwedFiresStayClean() {
		SimulationResult dropped = new Simulation(SimulationConfig.standard(26780755419150L)).run();
		assertThat(dropped.violation()).as(dropped.summary()).isNull();
		SimulationResult unread = new Simulation(SimulationConfig.standard(2026120753679L)).run();
		assertThat(unread.violation()).as(unread.summary()).isNull();
		SimulationResult twice = new Simulation(SimulationConfig.standard(2026120790736L)).run();
		assertThat(twice.violation()).as(twice.summary()).isNull();
	}

	/**
	 * A primary's step-down (Atlas maintenance, a rolling upgrade, {@code rs.stepDown()})
	 * shorter than the lease less two intervals changes no leadership and moves no
	 * partition: calls in flight fail, some after they applied, the multi-lease writes
	 * are reissued once, calls issued meanwhile wait for the new primary.
	 */
	@Test
	void stepDownsShorterThanTheLeaseLessTwoIntervalsChangeNoLeadershipAndMoveNoPartition() {
		scenario(SimulationConfig::stepDowns, 12);
	}

	/**
	 * Behind a mongos whose clock is up to 5 s off the stamps', through every other
	 * fault: no node sees a jump.
	 */
	@Test
	void aMongosClockSkewCausesNoDistrust() {
		scenario(SimulationConfig::behindMongos, 8);
	}

	/**
	 * A crashed holder's group or partition is taken over within the lease and two
	 * intervals, step-downs or not.
	 */
	@Test
	void aCrashedHolderIsTakenOverInTimeThroughStepDownsBehindAMongos() {
		scenario(SimulationConfig::crashesThroughStepDownsBehindMongos, 8);
	}

	/**
	 * Every fault with a restart grace: a stopped or crashed node's partitions wait for
	 * it, and it comes back under its id within the grace or after it; no belief breaks
	 * either way, and past the grace they move.
	 */
	@Test
	void restartsWithinAndPastTheGraceKeepEveryBelief() {
		scenario(SimulationConfig::restarts, 8);
	}

	/**
	 * Operators' hand-overs, drains, pins and pauses alone: every one through the drain,
	 * none breaking a belief.
	 */
	@Test
	void operatorsActionsKeepEveryInvariant() {
		scenario(SimulationConfig::operators, 8);
	}

	private static void scenario(java.util.function.LongFunction<SimulationConfig> config, int defaultSeeds) {
		long firstSeed = Long.getLong("membership.simulation.seed", System.nanoTime());
		int seeds = Integer.getInteger("membership.simulation.scenario.seeds", defaultSeeds);
		long transitions = 0;
		for (long seed = firstSeed; seed < firstSeed + seeds; seed++) {
			SimulationResult result = new Simulation(config.apply(seed)).run();
			assertThat(result.violation()).withFailMessage(() -> result.summary() + "\n  replay: " + result.replay())
				.isNull();
			transitions += result.transitions();
		}
		System.out.println(seeds + " runs from seed " + firstSeed + ": " + transitions + " transitions, no violation");
	}

	@Test
	void aSeedReplaysTheSameRun() {
		long seed = Long.getLong("membership.simulation.seed", System.nanoTime());
		SimulationConfig config = SimulationConfig.standard(seed).withChaos(Duration.ofMinutes(10));
		SimulationResult first = new Simulation(config).run();
		SimulationResult second = new Simulation(config).run();
		assertThat(second.steps()).as(first.summary()).isEqualTo(first.steps());
		assertThat(second.transitions()).isEqualTo(first.transitions());
		assertThat(second.trace()).isEqualTo(first.trace());
		assertThat(first.transitions()).isPositive();
	}

	@Test
	void replay() {
		Long seed = Long.getLong("membership.simulation.seed");
		assumeTrue(seed != null && System.getProperty("membership.simulation.replay") != null,
				"set -Dmembership.simulation.seed and -Dmembership.simulation.replay (and maybe "
						+ "-Dmembership.simulation.variant)");
		QuietMembershipLogs.logger().setLevel(Level.INFO);
		SimulationConfig.Variant variant = SimulationConfig.Variant
			.valueOf(System.getProperty("membership.simulation.variant", "AS_BUILT"));
		String scenario = System.getProperty("membership.simulation.scenario", "standard");
		SimulationConfig base = ("standard".equals(scenario) && variant != SimulationConfig.Variant.AS_BUILT)
				? variant.config(seed) : scenario().apply(seed);
		SimulationResult result = new Simulation(variant.apply(base)).run();
		result.trace().forEach(System.out::println);
		System.out.println(result.summary());
		assertThat(result.violation()).withFailMessage(result::summary).isNull();
	}

	@Test
	void soak() throws Exception {
		long transitions = Long.getLong("membership.simulation.soak", 0);
		assumeTrue(transitions > 0, "set -Dmembership.simulation.soak=<transitions>");
		long firstSeed = Long.getLong("membership.simulation.seed", System.nanoTime());
		int threads = Integer.getInteger("membership.simulation.threads", Runtime.getRuntime().availableProcessors());
		Summary summary = simulate(firstSeed, transitions, Duration.ofDays(1), threads, scenario());
		System.out.println(summary);
		assertThat(summary.failures.isEmpty()).withFailMessage(summary::toString).isTrue();
		ranWork(summary);
	}

	/**
	 * The runs {@code -Dmembership.simulation.scenario} names (a soak's, a replay's): the
	 * standard one by default.
	 */
	private static java.util.function.LongFunction<SimulationConfig> scenario() {
		return switch (System.getProperty("membership.simulation.scenario", "standard")) {
			case "stepDowns" -> SimulationConfig::stepDowns;
			case "behindMongos" -> SimulationConfig::behindMongos;
			case "crashes" -> SimulationConfig::crashesThroughStepDownsBehindMongos;
			case "operators" -> SimulationConfig::operators;
			case "restarts" -> SimulationConfig::restarts;
			default -> SimulationConfig::standard;
		};
	}

	/**
	 * Runs seeds firstSeed, firstSeed + 1, ... on {@code threads} threads until enough
	 * transitions or time.
	 */
	static Summary simulate(long firstSeed, long transitions, Duration budget, int threads) throws Exception {
		return simulate(firstSeed, transitions, budget, threads, SimulationConfig::standard);
	}

	static Summary simulate(long firstSeed, long transitions, Duration budget, int threads,
			java.util.function.LongFunction<SimulationConfig> config) throws Exception {
		Summary summary = new Summary(firstSeed);
		long started = System.nanoTime();
		long until = started + budget.toNanos();
		AtomicLong nextSeed = new AtomicLong(firstSeed);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				workers.add(pool.submit(() -> {
					while (summary.transitions.get() < transitions && System.nanoTime() < until
							&& summary.failures.isEmpty()) {
						summary.add(new Simulation(config.apply(nextSeed.getAndIncrement())).run());
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
		summary.wall = Duration.ofNanos(System.nanoTime() - started);
		return summary;
	}

	static final class Summary {

		final long firstSeed;

		final AtomicLong transitions = new AtomicLong();

		final AtomicLong steps = new AtomicLong();

		final AtomicLong leaderOnlyRuns = new AtomicLong();

		final AtomicLong scheduledFires = new AtomicLong();

		final AtomicLong overlapsAfterFaults = new AtomicLong();

		final AtomicLong runs = new AtomicLong();

		final AtomicLong virtualMinutes = new AtomicLong();

		final Map<Simulation.Fault, Long> faults = new EnumMap<>(Simulation.Fault.class);

		final List<SimulationResult> failures = new ArrayList<>();

		/**
		 * Jumps of the database's clock that happened: beyond the safety margin, and
		 * within it.
		 */
		final AtomicLong largeClockJumps = new AtomicLong();

		final AtomicLong smallClockJumps = new AtomicLong();

		final AtomicLong unsettledSteps = new AtomicLong();

		Duration wall;

		Summary(long firstSeed) {
			this.firstSeed = firstSeed;
		}

		synchronized void add(SimulationResult result) {
			this.transitions.addAndGet(result.transitions());
			this.steps.addAndGet(result.steps());
			this.leaderOnlyRuns.addAndGet(result.leaderOnlyRuns());
			this.scheduledFires.addAndGet(result.scheduledFires());
			this.overlapsAfterFaults.addAndGet(result.overlapsAfterFaults());
			this.runs.incrementAndGet();
			this.virtualMinutes.addAndGet(result.virtualTime().toMinutes());
			result.faults().forEach((fault, count) -> this.faults.merge(fault, (long) count, Long::sum));
			this.largeClockJumps.addAndGet(result.clockJumps()[0]);
			this.smallClockJumps.addAndGet(result.clockJumps()[1]);
			this.unsettledSteps.addAndGet(result.unsettledSteps());
			if (result.failed()) {
				this.failures.add(result);
			}
		}

		@Override
		public synchronized String toString() {
			StringBuilder out = new StringBuilder("simulation: ").append(this.transitions)
				.append(" transitions in ")
				.append(this.runs)
				.append(" runs (seeds ")
				.append(this.firstSeed)
				.append("..")
				.append(this.firstSeed + this.runs.get() - 1)
				.append("), ")
				.append(this.steps)
				.append(" steps (")
				.append(this.unsettledSteps)
				.append(" with the lease checks off after a clock jump, the one-believer check on), ")
				.append(this.leaderOnlyRuns)
				.append(" leader-only runs (")
				.append(this.overlapsAfterFaults)
				.append(" overlapping one after a fault), ")
				.append(this.scheduledFires)
				.append(" scheduled fires run, ")
				.append(this.virtualMinutes)
				.append(" virtual minutes, ")
				.append(this.wall)
				.append(" wall; faults ")
				.append(this.faults)
				.append(" (clock jumps that happened: ")
				.append(this.largeClockJumps)
				.append(" of 1-30 s, ")
				.append(this.smallClockJumps)
				.append(" of up to 300 ms)");
			for (SimulationResult failure : this.failures) {
				out.append("\n").append(failure.summary()).append("\n  replay: ").append(failure.replay());
				failure.trace()
					.stream()
					.skip(Math.max(0, failure.trace().size() - 40))
					.forEach((line) -> out.append("\n  ").append(line));
			}
			return out.toString();
		}

	}

}
