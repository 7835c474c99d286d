package dev.membership.test;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.NodeRuntime;

/**
 * Runs the work of every node of a {@link SimulatedCluster} on one thread, in order of
 * virtual time (ties in order of submission), on a {@link VirtualScheduler} it guards
 * with its lock. Work due now runs at once; time moves only through
 * {@link #moveTo(long, Duration)} and {@link #step}, so a test decides when renewals,
 * expiries and timeouts happen. Other threads (a test, leader-only work finishing) may
 * submit at any time.
 */
final class VirtualDriver implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(VirtualDriver.class);

	/** Guarded by the lock, but for its time, which anyone may read. */
	private final VirtualScheduler scheduler;

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled whenever work is submitted or finishes. */
	private final Condition changed = this.lock.newCondition();

	private final Thread thread;

	private long submissions;

	private boolean busy;

	/**
	 * The lane whose work the driver's thread runs now, or null: written and read on that
	 * thread only.
	 */
	private VirtualScheduler.@Nullable Owner running;

	private boolean closed;

	/**
	 * The first failure of a simulated node's work (a bug in the node, or in what the
	 * test made it run): rethrown to the test at its next call, so that a test never
	 * passes over it.
	 */
	private volatile @Nullable Throwable failure;

	VirtualDriver(VirtualScheduler scheduler) {
		this.scheduler = scheduler;
		this.thread = new Thread(this::run, "membership-simulated-cluster");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	long now() {
		return this.scheduler.now();
	}

	/**
	 * Runs everything due up to {@code nanos}, in order, moving time with it; returns
	 * once all of it has run.
	 */
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

	/**
	 * Moves time to the next piece of work and runs everything then due; false when
	 * nothing is due by {@code limit}.
	 */
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
			this.scheduler.advanceTo(nanos);
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** When the earliest pending work is due, or null. */
	@Nullable Long nextDue() {
		this.lock.lock();
		try {
			return this.scheduler.nextAt();
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
		Throwable failed = this.failure;
		if (failed != null) {
			throw new IllegalStateException("Work of a simulated node failed: " + failed, failed);
		}
	}

	/**
	 * How much work has been submitted so far: a mark for {@link #awaitSubmissionAfter}.
	 */
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
	 * Waits at most {@code realTimeout} for work to be submitted after the mark
	 * {@code seen} (say, by leader-only work that ends and lets a hand-over go on);
	 * returns whether some was. False at once once closed.
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
		return new VirtualRuntime(this);
	}

	@Override
	public void close() {
		this.lock.lock();
		try {
			this.closed = true; // what is pending never runs
			this.changed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Whether the calling thread is the driver's, running work of {@code lane} now. */
	boolean isRunning(VirtualScheduler.Owner lane) {
		return Thread.currentThread() == this.thread && this.running == lane;
	}

	private boolean dueNow() {
		Long next = this.scheduler.nextAt();
		return next != null && next <= this.scheduler.now();
	}

	/**
	 * Schedules {@code work} of {@code lane} {@code delayNanos} from now; null once the
	 * driver is closed.
	 */
	VirtualScheduler.@Nullable Event submit(VirtualScheduler.Owner lane, long delayNanos, Runnable work) {
		this.lock.lock();
		try {
			if (this.closed) {
				return null;
			}
			VirtualScheduler.Event event = this.scheduler.after(delayNanos, lane, work);
			this.submissions++;
			this.changed.signalAll();
			return event;
		}
		finally {
			this.lock.unlock();
		}
	}

	private void run() {
		this.lock.lock();
		try {
			while (!this.closed) {
				VirtualScheduler.Event event = this.scheduler.take(this.scheduler.now());
				if (event == null) {
					this.changed.await();
					continue;
				}
				this.busy = true;
				this.lock.unlock();
				try {
					this.running = event.owner();
					event.run();
				}
				catch (Throwable ex) {
					log.warn("Work of a simulated node failed", ex);
					if (this.failure == null) {
						this.failure = ex;
					}
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

}
