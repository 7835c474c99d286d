package dev.membership.leadership;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.MonotonicClock;

/**
 * One uninterrupted period in which this node leads a group under one epoch. The object is live: it stays valid for as
 * long as this node holds the epoch and its (renewed) deadline has not passed, and turns invalid at once when the belief
 * ends (revocation, missed deadline, shutdown), so leader code may keep it and ask again.
 * <p>
 * Leader code uses {@link #epoch()} to fence its writes (reject anything stamped with a lower epoch) and
 * {@link #remaining()} to avoid starting work it cannot finish while still leader. Leader-only work registers with
 * {@link #tryBegin(String, boolean)}, so that a graceful hand-over waits for it before the lease is released.
 */
public final class LeadershipTerm {

	private static final Logger log = LoggerFactory.getLogger(LeadershipTerm.class);

	private final String group;

	private final long epoch;

	private final MonotonicClock clock;

	private volatile long deadlineNanos;

	private volatile boolean ended;

	private volatile boolean handingOver;

	/** How much leader-only work runs under this term: what a hand-over waits for. */
	private final AtomicInteger running = new AtomicInteger();

	/** The same, by name, for the log when a hand-over cannot wait any longer. */
	private final Map<String, AtomicInteger> runningByName = new ConcurrentHashMap<>();

	/** Only the work that asked to be told of the end: threads to interrupt, pipelines to cancel. */
	private final Set<Execution> interruptible = ConcurrentHashMap.newKeySet();

	private final CompletableFuture<Void> drained = new CompletableFuture<>();

	private LeadershipTerm(String group, long epoch, long deadlineNanos, MonotonicClock clock) {
		this.group = group;
		this.epoch = epoch;
		this.deadlineNanos = deadlineNanos;
		this.clock = clock;
	}

	/**
	 * Starts a term. Only the holder of the returned {@link Control} can extend or end it; the node keeps it and hands
	 * out the term.
	 */
	public static Control start(String group, long epoch, long deadlineNanos, MonotonicClock clock) {
		return new Control(new LeadershipTerm(group, epoch, deadlineNanos, clock));
	}

	public String group() {
		return this.group;
	}

	public long epoch() {
		return this.epoch;
	}

	/** Local monotonic time at which this node stops believing it leads unless it renews first; moves with renewals. */
	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	/** How long this node will still believe it leads if no renewal succeeds from now on; zero once ended. */
	public Duration remaining() {
		if (this.ended) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(Math.max(0, this.deadlineNanos - this.clock.nanoTime()));
	}

	/**
	 * Whether this node still leads under this term: not ended, and its renewed deadline has not passed. Once false,
	 * false for good: a renewal that lands just after the deadline cannot make it valid again.
	 */
	public boolean isValid() {
		if (this.ended) {
			return false;
		}
		if (this.clock.nanoTime() - this.deadlineNanos < 0) {
			return true;
		}
		this.ended = true;
		return false;
	}

	/**
	 * Whether this node has begun handing the group over (graceful stop or resign): the term stays valid while running
	 * leader-only work finishes, no new work starts, and long work should wrap up.
	 */
	public boolean isHandingOver() {
		return this.handingOver || this.ended;
	}

	/**
	 * Registers leader-only work under this term; null when the term is no longer valid or is being handed over, and
	 * then the work must not run. Close the returned execution on the same thread when the work ends: a hand-over
	 * waits for it.
	 *
	 * @param name what runs, for the log when a hand-over cannot wait any longer
	 * @param interruptOnEnd interrupt the calling thread when the term ends or is handed over while this runs
	 */
	public Execution tryBegin(String name, boolean interruptOnEnd) {
		return begin(name, interruptOnEnd ? Thread.currentThread() : null, null);
	}

	/**
	 * Registers leader-only work that runs on no particular thread (a reactive pipeline, say): as
	 * {@link #tryBegin(String, boolean)}, but the execution may be closed from any thread, and {@code onEnd}, when not
	 * null, runs once if the term ends or is handed over while the work is open (to cancel it). It runs on the thread
	 * that ends or hands over the term (one of the node's own), so it must only hand the news on (schedule the cancel
	 * elsewhere), never block; what it throws is logged and ignored.
	 */
	public Execution tryBegin(String name, Runnable onEnd) {
		return begin(name, null, (onEnd != null) ? onEnd : NOT_TOLD);
	}

	private Execution begin(String name, Thread thread, Runnable onEnd) {
		if (this.handingOver || !isValid()) {
			return null;
		}
		AtomicInteger byName = this.runningByName.get(name);
		if (byName == null) {
			byName = this.runningByName.computeIfAbsent(name, (key) -> new AtomicInteger());
		}
		Execution execution = new Execution(this, name, byName, thread, onEnd);
		this.running.incrementAndGet();
		byName.incrementAndGet();
		if (execution.isTold()) {
			this.interruptible.add(execution);
		}
		// registered first, checked again: a hand-over or end that began meanwhile either sees this execution or
		// refuses it (the flags suffice: a deadline passing now is no different from one passing just after)
		if (this.handingOver || this.ended) {
			execution.close();
			return null;
		}
		return execution;
	}

	/** Work begun with a callback that is not told of the end: closable from any thread all the same. */
	private static final Runnable NOT_TOLD = () -> {
	};

	/** What leader-only work runs under this term right now, by name (with a count when more than one runs). */
	public List<String> runningWork() {
		return this.runningByName.entrySet()
			.stream()
			.filter((e) -> e.getValue().get() > 0)
			.map((e) -> (e.getValue().get() > 1) ? e.getKey() + " x" + e.getValue().get() : e.getKey())
			.sorted()
			.toList();
	}

	private void finished(Execution execution) {
		if (execution.isTold()) {
			this.interruptible.remove(execution);
		}
		execution.byName.decrementAndGet();
		if (this.running.decrementAndGet() == 0 && this.handingOver) {
			this.drained.complete(null);
		}
	}

	private void interruptRunning() {
		for (Execution execution : this.interruptible) {
			execution.interrupt();
		}
	}

	@Override
	public String toString() {
		return "LeadershipTerm[group=" + this.group + ", epoch=" + this.epoch + ", remaining=" + remaining() + "]";
	}

	/** One piece of leader-only work running under a term. */
	public static final class Execution implements AutoCloseable {

		private final LeadershipTerm term;

		private final String name;

		private final AtomicInteger byName;

		/** The thread to interrupt when the term ends, or null. */
		private final Thread thread;

		/** What to run when the term ends, for work on no particular thread; null for work on one thread. */
		private final Runnable onEnd;

		private boolean closed;

		private boolean interrupted;

		private Execution(LeadershipTerm term, String name, AtomicInteger byName, Thread thread, Runnable onEnd) {
			this.term = term;
			this.name = name;
			this.byName = byName;
			this.thread = thread;
			this.onEnd = onEnd;
		}

		public String name() {
			return this.name;
		}

		public LeadershipTerm term() {
			return this.term;
		}

		private boolean isTold() {
			return this.thread != null || (this.onEnd != null && this.onEnd != NOT_TOLD);
		}

		private void interrupt() {
			if (!isTold()) {
				return;
			}
			synchronized (this) {
				if (this.closed || this.interrupted) {
					return;
				}
				this.interrupted = true;
				if (this.thread != null) {
					this.thread.interrupt();
					return;
				}
			}
			// outside the lock: a cancel may close this execution at once, on this thread or another
			try {
				this.onEnd.run();
			}
			catch (Throwable ex) {
				// the caller ends or hands over the term for the node: work's callback must not stop that
				log.warn("Telling leader-only work '{}' that its term ended failed", this.name, ex);
			}
		}

		/**
		 * Ends the work (once; later calls do nothing); clears an interrupt this term sent, since the thread may go
		 * back to a pool.
		 */
		@Override
		public void close() {
			if (this.thread == null && this.onEnd == null) {
				// only its own thread touches work that cannot be interrupted: no lock on the hot path
				if (this.closed) {
					return;
				}
				this.closed = true;
			}
			else {
				synchronized (this) {
					if (this.closed) {
						return;
					}
					this.closed = true;
					if (this.interrupted && this.thread == Thread.currentThread()) {
						Thread.interrupted();
					}
				}
			}
			this.term.finished(this);
		}

	}

	/** The owner's side of a term: extends it at renewals, hands it over, ends it. */
	public static final class Control {

		private final LeadershipTerm term;

		private Control(LeadershipTerm term) {
			this.term = term;
		}

		public LeadershipTerm term() {
			return this.term;
		}

		/**
		 * Moves the deadline to {@code deadlineNanos} (a later one, computed from a successful renewal) unless the term
		 * already ended; returns whether it did.
		 */
		public boolean extend(long deadlineNanos) {
			LeadershipTerm t = this.term;
			if (!t.isValid()) {
				return false;
			}
			if (deadlineNanos - t.deadlineNanos > 0) {
				t.deadlineNanos = deadlineNanos;
			}
			// a reader that saw the old deadline pass in the meantime ended the term for good: it stays ended
			return !t.ended;
		}

		/**
		 * Stops new work from starting, interrupts the work that asked for it, and completes once the rest has
		 * finished or the term ended.
		 */
		public CompletableFuture<Void> handOver() {
			LeadershipTerm t = this.term;
			t.handingOver = true;
			t.interruptRunning();
			if (t.running.get() == 0 || t.ended) {
				t.drained.complete(null);
			}
			return t.drained;
		}

		/** Ends the belief: the term turns invalid at once and interruptible work is interrupted. */
		public void end() {
			LeadershipTerm t = this.term;
			t.ended = true;
			t.interruptRunning();
			t.drained.complete(null);
		}

	}

}
