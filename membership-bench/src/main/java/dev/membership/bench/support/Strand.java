package dev.membership.bench.support;

import java.util.ArrayDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import dev.membership.spi.NodeRuntime;

/**
 * Tasks that run one at a time in submission order on a shared pool: a lane of one node
 * of {@link SharedRuntimes}. Delayed tasks go through the shared timer thread, which
 * hands them to the strand when due.
 */
final class Strand implements NodeRuntime.Lane {

	/** Tasks a strand runs in a row before it yields its pool thread to other strands. */
	private static final int BATCH = 16;

	private final ExecutorService pool;

	private final ScheduledExecutorService timers;

	// guarded by this
	private final ArrayDeque<Runnable> queue = new ArrayDeque<>();

	// a drain of this strand is on the pool, waiting or running
	private boolean drainQueued;

	private boolean closed;

	// the pool thread running one of this strand's tasks, while it does
	private Thread runner;

	/** Where the CPU time of this strand's tasks is added up: its node's. */
	private final SharedRuntimes.CallScope scope;

	Strand(ExecutorService pool, ScheduledExecutorService timers, SharedRuntimes.CallScope scope) {
		this.pool = pool;
		this.timers = timers;
		this.scope = scope;
	}

	@Override
	public boolean execute(Runnable task) {
		synchronized (this) {
			if (this.closed) {
				return false;
			}
			this.queue.addLast(task);
			if (this.drainQueued) {
				return true;
			}
			this.drainQueued = true;
		}
		return submitDrain();
	}

	@Override
	public NodeRuntime.Timer schedule(Runnable task, long delayNanos) {
		synchronized (this) {
			if (this.closed) {
				return null;
			}
		}
		DelayedTask delayed = new DelayedTask(task);
		try {
			delayed.future = this.timers.schedule(() -> execute(delayed), Math.max(0, delayNanos),
					TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			return null;
		}
		return delayed;
	}

	@Override
	public synchronized boolean isCurrent() {
		return this.runner == Thread.currentThread();
	}

	/** No new tasks; those given run. */
	synchronized void close() {
		this.closed = true;
		notifyAll();
	}

	/**
	 * No new tasks, the waiting ones are dropped, the running one is interrupted (as
	 * shutdownNow does).
	 */
	synchronized void closeNow() {
		this.closed = true;
		this.queue.clear();
		if (this.runner != null) {
			// under the lock: the runner cannot have moved on to another strand's task
			this.runner.interrupt();
		}
		notifyAll();
	}

	/**
	 * Waits until every task given has run, or the deadline (System.nanoTime) has passed.
	 */
	synchronized void awaitIdle(long deadlineNanos) {
		while (this.drainQueued || !this.queue.isEmpty()) {
			long left = deadlineNanos - System.nanoTime();
			if (left <= 0) {
				return;
			}
			try {
				TimeUnit.NANOSECONDS.timedWait(this, left);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	private boolean submitDrain() {
		try {
			this.pool.execute(this::drain);
			return true;
		}
		// the pools are closed: the whole harness is stopping
		catch (RejectedExecutionException ex) {
			synchronized (this) {
				this.closed = true;
				this.queue.clear();
				this.drainQueued = false;
				notifyAll();
			}
			return false;
		}
	}

	private void drain() {
		for (int i = 0; i < BATCH; i++) {
			Runnable task;
			synchronized (this) {
				task = this.queue.pollFirst();
				if (task == null) {
					this.drainQueued = false;
					notifyAll();
					return;
				}
				this.runner = Thread.currentThread();
			}
			long cpu = SharedRuntimes.CallScope.threadCpuNanos();
			try {
				task.run();
			}
			catch (Throwable ex) {
				// as a ScheduledExecutorService does with a task's failure: the lane goes
				// on
			}
			finally {
				this.scope.addCpu(SharedRuntimes.CallScope.threadCpuNanos() - cpu);
				synchronized (this) {
					this.runner = null;
				}
				// an interrupt meant for this strand's task must not reach the next one
				Thread.interrupted();
			}
		}
		// more waiting: back of the pool's queue, so that one busy strand cannot starve
		// the others
		submitDrain();
	}

	/** A delayed task: runs on its strand when due, unless cancelled before it starts. */
	private static final class DelayedTask implements Runnable, NodeRuntime.Timer {

		private volatile boolean cancelled;

		private volatile ScheduledFuture<?> future;

		private final Runnable task;

		DelayedTask(Runnable task) {
			this.task = task;
		}

		@Override
		public void run() {
			if (!this.cancelled) {
				this.task.run();
			}
		}

		@Override
		public void cancel() {
			this.cancelled = true;
			ScheduledFuture<?> f = this.future;
			if (f != null) {
				f.cancel(false);
			}
		}

	}

}
