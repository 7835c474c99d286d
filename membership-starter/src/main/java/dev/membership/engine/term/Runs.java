package dev.membership.engine.term;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.MembershipStatus;
import dev.membership.engine.clock.ServerClock;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.RunInfo;
import dev.membership.spi.RunObserver;
import dev.membership.spi.RunOutcome;

/**
 * Every run of work registered with this node's terms, as far as anything watches runs:
 * the observers (observations, the run history) and the runs' time limits. A node without
 * observers tracks only runs with a limit, so that the usual guard costs nothing more.
 * From any thread.
 */
public final class Runs {

	private static final Logger log = LoggerFactory.getLogger(Runs.class);

	private static final RunObserver.Ended[] NO_ENDS = {};

	private final String nodeId;

	/** The start of every run id: unique to this process (its incarnation). */
	private final String idPrefix;

	private final AtomicLong count = new AtomicLong();

	private final MonotonicClock clock;

	private final ServerClock serverClock;

	private final RunObserver[] observers;

	/** Runs with a time limit, until they end. */
	private final Set<Run> limited = ConcurrentHashMap.newKeySet();

	/**
	 * How often a unit held off for a hung run looks again whether the run ended: a
	 * renewal interval.
	 */
	private final long recheckNanos;

	public Runs(String nodeId, String incarnation, MonotonicClock clock, ServerClock serverClock,
			List<RunObserver> observers, Duration recheck) {
		this.nodeId = nodeId;
		this.recheckNanos = recheck.toNanos();
		this.idPrefix = process(incarnation) + "-";
		this.clock = clock;
		this.serverClock = serverClock;
		this.observers = observers.toArray(RunObserver[]::new);
	}

	/**
	 * The process a run id names: the start of the incarnation, enough to tell this
	 * node's processes apart.
	 */
	public static String process(String incarnation) {
		String plain = incarnation.replace("-", "");
		return plain.substring(0, Math.min(12, plain.length()));
	}

	/** None at all: for terms made outside a node (tests). */
	public static Runs none(MonotonicClock clock) {
		return new Runs("", "", clock, new ServerClock(clock), List.of(), Duration.ofSeconds(1));
	}

	/** Whether a run without a time limit is tracked at all. */
	boolean observed() {
		return this.observers.length > 0;
	}

	/**
	 * A run of {@code job} begins under {@code term}, on this thread when
	 * {@code onThread}.
	 */
	Run began(Term term, String job, long maxRunNanos, boolean onThread) {
		return began(term, job, maxRunNanos, onThread, null);
	}

	/**
	 * As {@link #began(Term, String, long, boolean)}, the run of the scheduled fire at
	 * {@code fireAt} (not null).
	 */
	Run began(Term term, String job, long maxRunNanos, boolean onThread, @Nullable Instant fireAt) {
		Unit unit = term.unit();
		RunInfo info = new RunInfo(this.idPrefix + this.count.incrementAndGet(), job, unit.group(),
				unit.isPartition() ? unit.partition() : null, unit.isPartition() ? unit.partitions() : 0, term.epoch(),
				this.nodeId, this.serverClock.estimateIfSynchronized(), onThread, fireAt);
		RunObserver.Ended[] ends = NO_ENDS;
		if (this.observers.length > 0) {
			List<RunObserver.Ended> told = new ArrayList<>(this.observers.length);
			for (RunObserver observer : this.observers) {
				try {
					told.add(observer.began(info));
				}
				catch (Throwable ex) {
					log.warn("A run observer failed at the start of {} (ignored)", job, ex);
				}
			}
			ends = told.toArray(RunObserver.Ended[]::new);
		}
		Run run = new Run(info, this.clock.nanoTime(), maxRunNanos, Thread.currentThread(), ends);
		if (maxRunNanos > 0) {
			this.limited.add(run);
		}
		return run;
	}

	void ended(Run run, RunOutcome outcome, @Nullable Throwable error) {
		if (run.maxRunNanos > 0) {
			this.limited.remove(run);
		}
		run.ended(outcome, error);
	}

	/**
	 * Runs past their limit that were not reported yet: each is marked hung and returned
	 * once.
	 */
	public List<Run> newlyHung() {
		long now = this.clock.nanoTime();
		List<Run> found = new ArrayList<>();
		for (Run run : this.limited) {
			if (!run.hung && now - run.startedNanos - run.maxRunNanos > 0) {
				run.hung = true;
				found.add(run);
			}
		}
		return found;
	}

	/** Runs past their limit that still run, the longest-running first. */
	List<Run> hung() {
		return this.limited.stream()
			.filter((run) -> run.hung)
			.sorted(Comparator.comparingLong((Run run) -> run.startedNanos))
			.toList();
	}

	/**
	 * Whether a run past its limit still runs under a term of {@code unit}: this node
	 * then does not compete for it.
	 */
	public boolean hangs(Unit unit) {
		for (Run run : this.limited) {
			if (run.hung && run.info.group().equals(unit.group())
					&& (!unit.isPartition() || Integer.valueOf(unit.partition()).equals(run.info.partition()))) {
				return true;
			}
		}
		return false;
	}

	/** How often a unit held off for a hung run looks again whether the run ended. */
	public long recheckNanos() {
		return this.recheckNanos;
	}

	/** {@link #hung()} as the status says it. */
	public List<MembershipStatus.HungRun> hungRuns() {
		long now = this.clock.nanoTime();
		return hung().stream()
			.map((run) -> new MembershipStatus.HungRun(run.info.job(), run.info.group(), run.info.partition(),
					run.info.epoch(), run.startedAt(), Duration.ofNanos(now - run.startedNanos)))
			.toList();
	}

}
