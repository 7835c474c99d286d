package dev.membership.engine.loop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.membership.spi.NodeRuntime;

/**
 * The production runtime: one daemon thread per lane, created on first use. Store calls
 * run synchronously on the loop thread, so the loop waits for each (every store bounds
 * its calls with a timeout shorter than the lease).
 */
public final class ThreadedRuntime implements NodeRuntime {

	private final ScheduledExecutorService loop;

	private final ScheduledExecutorService watchdog;

	private final ScheduledExecutorService reactions;

	private final ScheduledExecutorService application;

	private final Lane loopLane;

	private final Lane watchdogLane;

	private final Lane reactionsLane;

	private final Lane applicationLane;

	private final ScheduledExecutorService history;

	private final Lane historyLane;

	/** The thread each lane runs on (its executor's one thread, the last it made). */
	private final List<AtomicReference<Thread>> threads = List.of(new AtomicReference<>(), new AtomicReference<>(),
			new AtomicReference<>(), new AtomicReference<>(), new AtomicReference<>());

	public ThreadedRuntime(String nodeId) {
		this.loop = Executors.newSingleThreadScheduledExecutor(daemon("membership-loop-" + nodeId, 0));
		this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon("membership-watchdog-" + nodeId, 1));
		this.reactions = Executors.newSingleThreadScheduledExecutor(daemon("membership-events-" + nodeId, 2));
		this.application = Executors.newSingleThreadScheduledExecutor(daemon("membership-app-events-" + nodeId, 3));
		this.loopLane = new ExecutorLane(this.loop, this.threads.get(0));
		this.watchdogLane = new ExecutorLane(this.watchdog, this.threads.get(1));
		this.reactionsLane = new ExecutorLane(this.reactions, this.threads.get(2));
		this.applicationLane = new ExecutorLane(this.application, this.threads.get(3));
		// its thread made by the first write: a node without a run history has none
		this.history = Executors.newSingleThreadScheduledExecutor(daemon("membership-history-" + nodeId, 4));
		this.historyLane = new ExecutorLane(this.history, this.threads.get(4));
	}

	@Override
	public Lane loop() {
		return this.loopLane;
	}

	@Override
	public Lane watchdog() {
		return this.watchdogLane;
	}

	@Override
	public Lane reactions() {
		return this.reactionsLane;
	}

	@Override
	public Lane application() {
		return this.applicationLane;
	}

	@Override
	public Lane history() {
		return this.historyLane;
	}

	@Override
	public void shutdown() {
		this.loop.shutdownNow();
		this.watchdog.shutdownNow();
		this.reactions.shutdown();
		this.application.shutdown();
		// a write under way ends (bounded by the store's timeout); none starts
		this.history.shutdown();
	}

	@Override
	public void awaitEvents(Duration timeout) {
		try {
			long until = System.nanoTime() + timeout.toNanos();
			this.reactions.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
			this.application.awaitTermination(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.reactions.shutdownNow();
		this.application.shutdownNow();
	}

	@Override
	public void halt() {
		this.loop.shutdownNow();
		this.watchdog.shutdownNow();
		this.reactions.shutdownNow();
		this.application.shutdownNow();
		this.history.shutdownNow();
	}

	private ThreadFactory daemon(String name, int lane) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, (count.getAndIncrement() == 0) ? name : name + "-" + count.get());
			thread.setDaemon(true);
			this.threads.get(lane).set(thread);
			return thread;
		};
	}

	private record ExecutorLane(ScheduledExecutorService executor, AtomicReference<Thread> thread) implements Lane {

		@Override
		public boolean isCurrent() {
			return Thread.currentThread() == this.thread.get();
		}

		@Override
		public boolean execute(Runnable task) {
			try {
				this.executor.execute(task);
				return true;
			}
			catch (RejectedExecutionException ex) {
				return false;
			}
		}

		@Override
		public Timer schedule(Runnable task, long delayNanos) {
			try {
				ScheduledFuture<?> future = this.executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
				return () -> future.cancel(false);
			}
			catch (RejectedExecutionException ex) {
				return null;
			}
		}

	}

}
