package dev.membership.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;

/**
 * The checks of the scenarios that isolate one of a real deployment's events, each
 * enabled by the configuration: {@link Invariant#STABLE_THROUGH_STEP_DOWNS} (once the
 * cluster settled, no belief begins or ends while only step-downs happen),
 * {@link Invariant#NO_DISTRUST_BEHIND_MONGOS} (no node sees a clock jump behind a skewed
 * {@code mongos}) and {@link Invariant#CRASH_TAKEN_OVER} (every unit a crashed node held
 * has a new term within the lease and two intervals).
 */
final class ScenarioChecks implements LeadershipObserver {

	private final Set<Invariant> enabled;

	private final LongSupplier now;

	private final Consumer<String> violations;

	/** From when (virtual time) leadership must hold still, until when. */
	private final long stableFrom;

	private final long stableUntil;

	private final long takeOverBound;

	/** When each unit's last term began (virtual time). */
	private final ToLongFunction<String> lastTermStart;

	private final List<Crash> crashes = new ArrayList<>();

	/**
	 * A crash of {@code nodeId} holding {@code units}; the bound runs from {@code from}.
	 */
	private static final class Crash {

		final String nodeId;

		final List<String> units;

		final long at;

		long from;

		/**
		 * What step-downs since added to the bound: each costs at most one interval of
		 * reads.
		 */
		long extra;

		Crash(String nodeId, long at, List<String> units) {
			this.nodeId = nodeId;
			this.at = at;
			this.from = at;
			this.units = units;
		}

	}

	ScenarioChecks(Set<Invariant> enabled, LongSupplier now, Consumer<String> violations, long stableFrom,
			long stableUntil, Duration takeOverBound, ToLongFunction<String> lastTermStart) {
		this.enabled = enabled;
		this.now = now;
		this.violations = violations;
		this.stableFrom = stableFrom;
		this.stableUntil = stableUntil;
		this.takeOverBound = takeOverBound.toNanos();
		this.lastTermStart = lastTermStart;
	}

	private boolean holdsStill() {
		long at = this.now.getAsLong();
		return this.enabled.contains(Invariant.STABLE_THROUGH_STEP_DOWNS) && at >= this.stableFrom
				&& at < this.stableUntil;
	}

	@Override
	public void started(String nodeId, String group, long epoch, long atNanos) {
		if (holdsStill()) {
			this.violations.accept(Invariant.STABLE_THROUGH_STEP_DOWNS
				.violation(nodeId + " began a term of " + group + " (epoch " + epoch + ") through step-downs alone"));
		}
	}

	@Override
	public void ended(String nodeId, String group, long epoch, long atNanos) {
		if (holdsStill()) {
			this.violations.accept(Invariant.STABLE_THROUGH_STEP_DOWNS
				.violation(nodeId + "'s term of " + group + " (epoch " + epoch + ") ended through step-downs alone"));
		}
	}

	/**
	 * What the node {@code nodeId}'s clock samples tell: a jump is a violation behind a
	 * skewed mongos.
	 */
	ElectionMetrics metricsOf(String nodeId) {
		return new ElectionMetrics() {
			@Override
			public void renewal(String group, RenewalOutcome outcome) {
				if (outcome == RenewalOutcome.ERROR && holdsStill()) {
					ScenarioChecks.this.violations.accept(Invariant.STABLE_THROUGH_STEP_DOWNS
						.violation(nodeId + "'s renewal of " + group + " failed through a step-down"));
				}
			}

			@Override
			public void clockJumped(Duration jump) {
				if (ScenarioChecks.this.enabled.contains(Invariant.NO_DISTRUST_BEHIND_MONGOS)) {
					ScenarioChecks.this.violations.accept(Invariant.NO_DISTRUST_BEHIND_MONGOS
						.violation(nodeId + " saw the database's clock jump by " + jump + " behind a mongos"));
				}
			}
		};
	}

	/**
	 * {@code nodeId} crashed holding {@code units}. The bound of earlier crashes starts
	 * again: the node that crashed now may be the one to take them over, or the roster's
	 * keeper, which must judge the earlier one gone first.
	 */
	void crashed(String nodeId, List<String> units) {
		if (!this.enabled.contains(Invariant.CRASH_TAKEN_OVER)) {
			return;
		}
		long at = this.now.getAsLong();
		this.crashes.forEach((crash) -> crash.from = at);
		if (!units.isEmpty()) {
			this.crashes.add(new Crash(nodeId, at, List.copyOf(units)));
		}
	}

	/**
	 * The primary stepped down: the reads of the interval it falls in fail (the keeper's
	 * included, which judges the crashed node gone and places its units elsewhere), so
	 * each adds an interval to the bound.
	 */
	void steppedDown(Duration interval) {
		this.crashes.forEach((crash) -> crash.extra += interval.toNanos());
	}

	/**
	 * A node (re)started: the placement may put a crashed node's units on it, and it
	 * takes over no lease that may still be believed in for a lease after its first
	 * sample of the database's clock. The bound starts again.
	 */
	void nodeStarted() {
		long at = this.now.getAsLong();
		this.crashes.forEach((crash) -> crash.from = at);
	}

	/**
	 * After every step: a crashed node's units must have new terms within the bound of a
	 * moment when {@code running} nodes could take them (while none runs, the bound
	 * starts again).
	 */
	void check(int running) {
		if (this.crashes.isEmpty()) {
			return;
		}
		long at = this.now.getAsLong();
		this.crashes.removeIf((crash) -> {
			if (running == 0) {
				crash.from = at;
				return false;
			}
			List<String> waiting = crash.units.stream()
				.filter((unit) -> this.lastTermStart.applyAsLong(unit) <= crash.at)
				.toList();
			if (waiting.isEmpty()) {
				return true;
			}
			if (at - crash.from > this.takeOverBound + crash.extra) {
				this.violations.accept(Invariant.CRASH_TAKEN_OVER.violation(waiting + " of crashed " + crash.nodeId
						+ " not taken over within " + Duration.ofNanos(this.takeOverBound + crash.extra)));
				return true;
			}
			return false;
		});
	}

	/** Both: the safety invariants' observer, and this one. */
	static LeadershipObserver both(LeadershipObserver first, LeadershipObserver second) {
		return new LeadershipObserver() {
			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
				first.started(nodeId, group, epoch, atNanos);
				second.started(nodeId, group, epoch, atNanos);
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
				first.ended(nodeId, group, epoch, atNanos);
				second.ended(nodeId, group, epoch, atNanos);
			}
		};
	}

}
