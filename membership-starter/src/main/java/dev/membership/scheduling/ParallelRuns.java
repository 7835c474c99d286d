package dev.membership.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * The threads that run a node's partitions in parallel
 * ({@code @ForEachOwnedPartition(concurrency = n)}): daemon threads the starter owns,
 * started as calls need them (at most {@code n} for each call running) and gone after a
 * minute idle; shut down with the application context.
 */
final class ParallelRuns implements AutoCloseable {

	/** One partition's run, on one of these threads. */
	@FunctionalInterface
	interface Run {

		void run() throws Throwable;

	}

	private final ExecutorService threads;

	ParallelRuns() {
		AtomicInteger count = new AtomicInteger();
		this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
				(runnable) -> {
					Thread thread = new Thread(runnable, "membership-partition-" + count.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
	}

	/**
	 * Runs every one of {@code runs}, at most {@code concurrency} at once, and returns
	 * when all ended: the first failure (in the order of {@code runs}) rethrown, the
	 * later ones suppressed in it. An interrupt of the calling thread does not abandon
	 * runs that are registered with their terms: it is kept for when they all ended.
	 */
	void runAll(List<Run> runs, int concurrency) throws Throwable {
		Semaphore slots = new Semaphore(concurrency);
		List<Future<@Nullable Throwable>> started = new ArrayList<>(runs.size());
		boolean interrupted = false;
		try {
			for (Run run : runs) {
				while (true) {
					try {
						slots.acquire();
						break;
					}
					catch (InterruptedException ex) {
						interrupted = true;
					}
				}
				started.add(this.threads.submit(() -> {
					try {
						run.run();
						return null;
					}
					catch (Throwable ex) {
						// the run's own failure, rethrown on the calling thread
						return ex;
					}
					finally {
						slots.release();
					}
				}));
			}
			Throwable first = null;
			for (Future<@Nullable Throwable> future : started) {
				Throwable failure = outcome(future);
				if (Thread.interrupted()) {
					interrupted = true;
				}
				if (failure != null && first == null) {
					first = failure;
				}
				else if (failure != null) {
					first.addSuppressed(failure);
				}
			}
			if (first != null) {
				throw first;
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * What the run threw, once it ended; waits through interrupts (they are noted by the
	 * caller).
	 */
	private static @Nullable Throwable outcome(Future<@Nullable Throwable> future) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					return ex.getCause();
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void close() {
		this.threads.shutdown();
	}

}
