package dev.membership.engine.term;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.MonotonicClock;

/**
 * A term as this node's engine holds it: the {@link LeadershipTerm} that leader code
 * sees, and the owner's side (extend at renewals, hand over, end), which only the engine
 * can reach. Readers on any thread; the deadline moves only forward, and once the term
 * has ended, by its deadline or by its owner, it stays ended.
 */
public final class Term extends LeadershipTerm {

	private final Unit unit;

	private final long epoch;

	private final MonotonicClock clock;

	/** When this node began the term, by its own clock. */
	private final long startedNanos;

	private volatile long deadlineNanos;

	private volatile boolean ended;

	private volatile boolean handingOver;

	/**
	 * Claimed by the one caller that ends the term for the node: the one that says so
	 * (the revocation).
	 */
	private final AtomicBoolean endClaimed = new AtomicBoolean();

	/**
	 * How much leader-only work runs under this term, by name: what a hand-over waits for
	 * (all zero), and what the log names when it cannot wait any longer. One counter per
	 * name, so a call costs one atomic increment and decrement.
	 */
	private final Map<String, AtomicInteger> runningByName = new ConcurrentHashMap<>();

	/**
	 * The first counter looked up by name: the work of the usual term, one guarded
	 * method, costs no map lookup. Written once, so that threads running several names
	 * never contend for it; a plain field, since its record's fields are final.
	 */
	private @Nullable Named lastNamed;

	/**
	 * Only the work that asked to be told of the end: threads to interrupt, pipelines to
	 * cancel.
	 */
	private final Set<TermExecution> told = ConcurrentHashMap.newKeySet();

	private final CompletableFuture<Void> drained = new CompletableFuture<>();

	/** What watches the runs of this node's terms. */
	private final Runs runs;

	Term(Unit unit, long epoch, long deadlineNanos, MonotonicClock clock) {
		this(unit, epoch, deadlineNanos, clock, Runs.none(clock));
	}

	public Term(Unit unit, long epoch, long deadlineNanos, MonotonicClock clock, Runs runs) {
		this.unit = unit;
		this.epoch = epoch;
		this.deadlineNanos = deadlineNanos;
		this.clock = clock;
		this.startedNanos = clock.nanoTime();
		this.runs = runs;
	}

	Unit unit() {
		return this.unit;
	}

	Runs runs() {
		return this.runs;
	}

	/**
	 * {@code term} as the engine's: work registers with a term the engine made, never
	 * with a stand-in (a mock).
	 */
	public static Term of(LeadershipTerm term) {
		if (term instanceof Term own) {
			return own;
		}
		throw new IllegalArgumentException(term + " is not a term the engine made (a mock?): work cannot register");
	}

	/** How long ago this node began the term, by its own clock. */
	public long ageNanos() {
		return this.clock.nanoTime() - this.startedNanos;
	}

	@Override
	public String group() {
		return this.unit.group();
	}

	@Override
	public OptionalInt partition() {
		return this.unit.isPartition() ? OptionalInt.of(this.unit.partition()) : OptionalInt.empty();
	}

	@Override
	public long epoch() {
		return this.epoch;
	}

	/**
	 * Local monotonic time at which this node stops believing it leads unless it renews
	 * first.
	 */
	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	@Override
	public Duration remaining() {
		if (this.ended) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, this.deadlineNanos - this.clock.nanoTime()));
	}

	@Override
	public boolean isValid() {
		if (this.ended) {
			return false;
		}
		if (this.clock.nanoTime() - this.deadlineNanos < 0) {
			return true;
		}
		// a renewal that lands just after the deadline cannot make it valid again
		this.ended = true;
		return false;
	}

	@Override
	public boolean isEnding() {
		return this.handingOver || this.ended;
	}

	/**
	 * Registers work that runs on this thread, which has this term as its context until
	 * the execution is closed (and is interrupted at the end when {@code interruptible});
	 * null when the term is no longer valid or is ending.
	 */
	public @Nullable Execution tryBegin(String name, boolean interruptible) {
		return begin(name, interruptible ? Thread.currentThread() : null, null, 0);
	}

	/**
	 * As {@link #tryBegin(String, boolean)}, hung once it has run longer than
	 * {@code maxRunNanos} (0: never).
	 */
	public @Nullable Execution tryBegin(String name, boolean interruptible, long maxRunNanos) {
		return begin(name, interruptible ? Thread.currentThread() : null, null, maxRunNanos);
	}

	/**
	 * As {@link #tryBegin(String, boolean, long)}: the run of the scheduled fire at
	 * {@code fireAt}.
	 */
	public @Nullable TermExecution tryBegin(String name, boolean interruptible, long maxRunNanos, Instant fireAt) {
		return begin(name, interruptible ? Thread.currentThread() : null, null, maxRunNanos, fireAt);
	}

	/**
	 * Registers work on no particular thread, told of the end by {@code onEnd}; null as
	 * above.
	 */
	public @Nullable Execution tryBeginDetached(String name, Runnable onEnd, long maxRunNanos) {
		return begin(name, null, onEnd, maxRunNanos);
	}

	/**
	 * As {@link #tryBeginDetached(String, Runnable, long)}: the run of the scheduled fire
	 * at {@code fireAt}.
	 */
	public @Nullable TermExecution tryBeginDetached(String name, Runnable onEnd, long maxRunNanos, Instant fireAt) {
		return begin(name, null, onEnd, maxRunNanos, fireAt);
	}

	/**
	 * Makes this term the calling thread's context until the returned action runs: for
	 * {@link TermExecution}.
	 */
	Runnable enterHere() {
		return enterOnThisThread();
	}

	/**
	 * As {@link #enterHere()}, for the run of the scheduled fire at {@code fireAt} (null:
	 * none).
	 */
	Runnable enterHere(@Nullable Instant fireAt) {
		return (fireAt != null) ? enterOnThisThread(fireAt) : enterOnThisThread();
	}

	private @Nullable Execution begin(String name, @Nullable Thread thread, @Nullable Runnable onEnd,
			long maxRunNanos) {
		return begin(name, thread, onEnd, maxRunNanos, null);
	}

	private @Nullable TermExecution begin(String name, @Nullable Thread thread, @Nullable Runnable onEnd,
			long maxRunNanos, @Nullable Instant fireAt) {
		if (this.handingOver || !isValid()) {
			return null;
		}
		AtomicInteger byName = counter(name);
		TermExecution work = new TermExecution(this, name, byName, thread, onEnd);
		byName.incrementAndGet();
		if (work.isTold()) {
			this.told.add(work);
		}
		// registered first, checked again: a hand-over or end that began meanwhile either
		// sees this work or refuses it (the flags suffice: a deadline passing now is no
		// different from one passing just after)
		if (this.handingOver || this.ended) {
			work.close();
			return null;
		}
		work.bind(fireAt);
		if (maxRunNanos > 0 || this.runs.observed()) {
			work.watchedAs(this.runs.began(this, name, maxRunNanos, onEnd == null, fireAt));
		}
		return work;
	}

	/**
	 * The counter of {@code name}: the first one looked up when the name is the very same
	 * string (a guard passes its own, every call), so that the usual call costs no map
	 * lookup.
	 */
	private AtomicInteger counter(String name) {
		Named last = this.lastNamed;
		if (last != null && last.name == name) {
			return last.count;
		}
		AtomicInteger count = this.runningByName.computeIfAbsent(name, (key) -> new AtomicInteger());
		if (last == null) {
			this.lastNamed = new Named(name, count);
		}
		return count;
	}

	private record Named(String name, AtomicInteger count) {
	}

	void finished(TermExecution work) {
		if (work.isTold()) {
			this.told.remove(work);
		}
		if (work.byName().decrementAndGet() == 0 && this.handingOver && idle()) {
			this.drained.complete(null);
		}
	}

	/**
	 * Whether no work runs. Exact for the drain: work that got past its registration
	 * incremented its counter before the hand-over began (it checks again after
	 * incrementing), so a scan that starts after that sees it.
	 */
	private boolean idle() {
		for (AtomicInteger count : this.runningByName.values()) {
			if (count.get() > 0) {
				return false;
			}
		}
		return true;
	}

	/**
	 * What leader-only work runs under this term right now, by name (with a count when
	 * more than one runs).
	 */
	List<String> runningWork() {
		return this.runningByName.entrySet()
			.stream()
			.filter((e) -> e.getValue().get() > 0)
			.map((e) -> (e.getValue().get() > 1) ? e.getKey() + " x" + e.getValue().get() : e.getKey())
			.sorted()
			.toList();
	}

	/**
	 * Moves the deadline to {@code deadlineNanos} (a later one, from a successful
	 * renewal) unless the term already ended; returns whether it did.
	 */
	public boolean extend(long deadlineNanos) {
		if (!isValid()) {
			return false;
		}
		if (deadlineNanos - this.deadlineNanos > 0) {
			this.deadlineNanos = deadlineNanos;
		}
		// a reader that saw the old deadline pass in the meantime ended the term for
		// good: it stays ended
		return !this.ended;
	}

	/**
	 * Stops new work from starting, tells the work that asked for it, and completes once
	 * the rest has finished or the term ended. Safe from any thread, any number of times.
	 */
	public CompletableFuture<Void> handOver() {
		this.handingOver = true;
		tellRunning();
		if (this.ended || idle()) {
			this.drained.complete(null);
		}
		return this.drained;
	}

	/**
	 * Ends the belief: the term turns invalid at once and work that asked to be told is.
	 * Safe from any thread; returns true to the one call that ended it for the node,
	 * which is the one to say so.
	 */
	public boolean end() {
		this.ended = true;
		tellRunning();
		this.drained.complete(null);
		return this.endClaimed.compareAndSet(false, true);
	}

	private void tellRunning() {
		for (TermExecution work : this.told) {
			work.tell();
		}
	}

	@Override
	public String toString() {
		return "LeadershipTerm[" + this.unit.leaseName() + ", epoch=" + this.epoch + ", remaining=" + remaining() + "]";
	}

}
