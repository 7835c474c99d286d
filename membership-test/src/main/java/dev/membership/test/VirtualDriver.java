package dev.membership.test;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.NodeRuntime;

/**
 * Runs the work of every node of a {@link SimulatedCluster} on one thread, in order of virtual time (ties in order of
 * submission). Work due now runs at once; time moves only through {@link #moveTo(long)}, so a test decides when
 * renewals, expiries and timeouts happen. Other threads (a test, leader-only work finishing) may submit at any time.
 */
final class VirtualDriver implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(VirtualDriver.class);

	private final VirtualTime time;

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled whenever work is submitted or finishes. */
	private final Condition changed = this.lock.newCondition();

	private final PriorityQueue<Task> queue = new PriorityQueue<>();

	private final Thread thread;

	private long seq;

	private long submissions;

	private boolean busy;

	/** The lane whose work the driver's thread runs now, or null: written and read on that thread only. */
	private VirtualLane running;

	private boolean closed;

	VirtualDriver(VirtualTime time) {
		this.time = time;
		this.thread = new Thread(this::run, "membership-simulated-cluster");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	long now() {
		return this.time.nanoTime();
	}

	/** Runs everything due up to {@code nanos}, in order, moving time with it; returns once all of it has run. */
	void moveTo(long nanos, Duration realTimeout) {
		while (true) {
			Long next = nextDue();
			if (next == null || next > nanos) {
				break;
			}
			advanceTo(next);
			awaitIdle(realTimeout);
		}
		advanceTo(nanos);
		awaitIdle(realTimeout);
	}

	/** Moves time to the next piece of work and runs everything then due; false when nothing is due by {@code limit}. */
	boolean step(long limit, Duration realTimeout) {
		Long next = nextDue();
		if (next == null || next > limit) {
			return false;
		}
		advanceTo(next);
		awaitIdle(realTimeout);
		return true;
	}

	private void advanceTo(long nanos) {
		this.lock.lock();
		try {
			this.time.moveTo(nanos);
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** When the earliest pending work is due, or null. */
	Long nextDue() {
		this.lock.lock();
		try {
			while (!this.queue.isEmpty() && this.queue.peek().isVoid()) {
				this.queue.poll();
			}
			return this.queue.isEmpty() ? null : this.queue.peek().at;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Waits until no work due now is left or running. */
	void awaitIdle(Duration realTimeout) {
		if (Thread.currentThread() == this.thread) {
			return; // called from the driver's own work: what is due runs after it
		}
		long deadline = System.nanoTime() + realTimeout.toNanos();
		this.lock.lock();
		try {
			while (!this.closed && (this.busy || dueNow())) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					throw new IllegalStateException("The simulated cluster's work did not finish within " + realTimeout
							+ ": is a listener or leader-only method blocked on the membership thread?");
				}
				this.changed.awaitNanos(left);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for the simulated cluster", ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	/** How much work has been submitted so far: a mark for {@link #awaitSubmissionAfter}. */
	long submissions() {
		this.lock.lock();
		try {
			return this.submissions;
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits at most {@code realTimeout} for work to be submitted after the mark {@code seen} (say, by leader-only
	 * work that ends and lets a hand-over go on); returns whether some was. False at once once closed.
	 */
	boolean awaitSubmissionAfter(long seen, Duration realTimeout) {
		long deadline = System.nanoTime() + realTimeout.toNanos();
		this.lock.lock();
		try {
			while (this.submissions == seen) {
				long left = deadline - System.nanoTime();
				if (this.closed || left <= 0) {
					return false;
				}
				this.changed.awaitNanos(left);
			}
			return !this.closed;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** A runtime for one node: its four lanes on this driver. */
	NodeRuntime runtime() {
		return new Runtime();
	}

	@Override
	public void close() {
		this.lock.lock();
		try {
			this.closed = true;
			this.queue.clear();
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	private boolean dueNow() {
		while (!this.queue.isEmpty() && this.queue.peek().isVoid()) {
			this.queue.poll();
		}
		return !this.queue.isEmpty() && this.queue.peek().at <= this.time.nanoTime();
	}

	private Task submit(VirtualLane lane, long delayNanos, Runnable work) {
		this.lock.lock();
		try {
			if (this.closed) {
				return null;
			}
			Task task = new Task(this.time.nanoTime() + Math.max(0, delayNanos), this.seq++, lane, work);
			this.queue.add(task);
			this.submissions++;
			this.changed.signalAll();
			return task;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void run() {
		this.lock.lock();
		try {
			while (!this.closed) {
				if (!dueNow()) {
					this.changed.await();
					continue;
				}
				Task task = this.queue.poll();
				this.busy = true;
				this.lock.unlock();
				try {
					if (!task.isVoid()) {
						this.running = task.lane;
						task.work.run();
					}
				}
				catch (Throwable ex) {
					log.warn("Work of a simulated node failed", ex);
				}
				finally {
					this.running = null;
					this.lock.lock();
					this.busy = false;
					this.changed.signalAll();
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	private static final class Task implements Comparable<Task> {

		final long at;

		final long seq;

		final VirtualLane lane;

		final Runnable work;

		volatile boolean cancelled;

		Task(long at, long seq, VirtualLane lane, Runnable work) {
			this.at = at;
			this.seq = seq;
			this.lane = lane;
			this.work = work;
		}

		boolean isVoid() {
			return this.cancelled || this.lane.dropped;
		}

		@Override
		public int compareTo(Task other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.seq, other.seq);
		}

	}

	/** One lane of a node: refuses new work once shut down, and drops what it holds when halted. */
	private final class VirtualLane implements NodeRuntime.Lane {

		volatile boolean accepting = true;

		volatile boolean dropped;

		@Override
		public boolean execute(Runnable work) {
			return this.accepting && submit(this, 0, work) != null;
		}

		@Override
		public NodeRuntime.Timer schedule(Runnable work, long delayNanos) {
			Task task = this.accepting ? submit(this, delayNanos, work) : null;
			return (task != null) ? () -> task.cancelled = true : null;
		}

		@Override
		public boolean isCurrent() {
			return Thread.currentThread() == VirtualDriver.this.thread && VirtualDriver.this.running == this;
		}

		void shutdown() {
			this.accepting = false;
		}

		void halt() {
			this.accepting = false;
			this.dropped = true;
		}

	}

	private final class Runtime implements NodeRuntime {

		private final VirtualLane loop = new VirtualLane();

		private final VirtualLane watchdog = new VirtualLane();

		private final VirtualLane reactions = new VirtualLane();

		private final VirtualLane application = new VirtualLane();

		@Override
		public VirtualLane loop() {
			return this.loop;
		}

		@Override
		public VirtualLane watchdog() {
			return this.watchdog;
		}

		@Override
		public VirtualLane reactions() {
			return this.reactions;
		}

		@Override
		public VirtualLane application() {
			return this.application;
		}

		@Override
		public void shutdown() {
			this.loop.halt();
			this.watchdog.halt();
			this.reactions.shutdown();
			this.application.shutdown();
		}

		@Override
		public void awaitEvents(Duration timeout) {
			// events are due now: they run before the driver goes idle
			try {
				awaitIdle(timeout);
			}
			catch (IllegalStateException ex) {
				log.warn("Events of a stopping simulated node did not finish within {}", timeout);
			}
			this.reactions.halt();
			this.application.halt();
		}

		@Override
		public void halt() {
			this.loop.halt();
			this.watchdog.halt();
			this.reactions.halt();
			this.application.halt();
		}

	}

}
