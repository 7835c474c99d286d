package dev.membership.engine;

import dev.membership.spi.NodeRuntime;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The production runtime: one daemon thread per lane, created on first use. Store calls run synchronously on the loop
 * thread, so the loop waits for each (every store bounds its calls with a timeout shorter than the lease).
 */
final class ThreadedRuntime implements NodeRuntime {

	private final ScheduledExecutorService loop;

	private final ScheduledExecutorService watchdog;

	private final ScheduledExecutorService reactions;

	private final ScheduledExecutorService application;

	private final Lane loopLane;

	private final Lane watchdogLane;

	private final Lane reactionsLane;

	private final Lane applicationLane;

	ThreadedRuntime(String nodeId) {
		this.loop = Executors.newSingleThreadScheduledExecutor(daemon("membership-loop-" + nodeId));
		this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon("membership-watchdog-" + nodeId));
		this.reactions = Executors.newSingleThreadScheduledExecutor(daemon("membership-events-" + nodeId));
		this.application = Executors.newSingleThreadScheduledExecutor(daemon("membership-app-events-" + nodeId));
		this.loopLane = new ExecutorLane(this.loop);
		this.watchdogLane = new ExecutorLane(this.watchdog);
		this.reactionsLane = new ExecutorLane(this.reactions);
		this.applicationLane = new ExecutorLane(this.application);
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
	public void shutdown() {
		this.loop.shutdownNow();
		this.watchdog.shutdownNow();
		this.reactions.shutdown();
		this.application.shutdown();
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
	}

	private static ThreadFactory daemon(String name) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, (count.getAndIncrement() == 0) ? name : name + "-" + count.get());
			thread.setDaemon(true);
			return thread;
		};
	}

	private record ExecutorLane(ScheduledExecutorService executor) implements Lane {

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
