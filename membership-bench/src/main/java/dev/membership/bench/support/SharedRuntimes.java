package dev.membership.bench.support;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import dev.membership.spi.NodeRuntime;

/**
 * Runtimes for many simulated nodes in one JVM, on a few shared threads instead of four
 * threads per node (2,000 nodes would need 8,000 threads). Every node gets four serial
 * strands, as {@link NodeRuntime} asks: tasks of one strand run one at a time in
 * submission order, different strands run in parallel. The loop strands run on the store
 * pool, sized for store calls that block; the watchdog and event strands run on a small
 * pool of their own, so that a deadline never waits behind other nodes' store calls. One
 * timer thread hands delayed tasks to their strand when due.
 * <p>
 * Store calls run synchronously on the loop strand, like the production runtime, and are
 * counted per node with {@link CallScope} made current for the call, so that a command
 * listener on the shared client can tell the nodes' commands apart. Bench-only: never on
 * users' classpath.
 */
public final class SharedRuntimes implements AutoCloseable {

	private final ScheduledThreadPoolExecutor timers;

	private final ExecutorService storePool;

	private final ExecutorService lightPool;

	public SharedRuntimes(int storeThreads, int lightThreads) {
		this.timers = new ScheduledThreadPoolExecutor(1, daemon("bench-timers"));
		// nodes cancel and re-arm deadline timers every renewal
		this.timers.setRemoveOnCancelPolicy(true);
		this.storePool = Executors.newFixedThreadPool(storeThreads, daemon("bench-loop"));
		this.lightPool = Executors.newFixedThreadPool(lightThreads, daemon("bench-light"));
	}

	/** A node's runtime; its store calls are counted on {@code scope}. */
	public NodeRuntime runtime(CallScope scope) {
		return new SharedRuntime(scope);
	}

	/**
	 * Stops every thread; every node's runtime stops with them. Waits (at most 10 s) for
	 * the store calls still running, so that the client can be closed after this without
	 * failing calls in flight.
	 */
	@Override
	public void close() {
		this.timers.shutdownNow();
		this.storePool.shutdownNow();
		this.lightPool.shutdownNow();
		try {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			this.storePool.awaitTermination(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
			this.lightPool.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static ThreadFactory daemon(String name) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

	/**
	 * The node a store call is made for, current on the calling thread for the duration
	 * of the call; counts the calls.
	 */
	public static class CallScope {

		private static final ThreadLocal<CallScope> CURRENT = new ThreadLocal<>();

		private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

		private final AtomicInteger calls = new AtomicInteger();

		private final LongAdder cpuNanos = new LongAdder();

		/** The scope of the store call running on this thread, or null outside one. */
		public static CallScope current() {
			return CURRENT.get();
		}

		/** Store calls made so far. */
		public int calls() {
			return this.calls.get();
		}

		/**
		 * CPU time the node's tasks (on its four lanes, store calls included: the
		 * client's side of them) took so far, in nanoseconds.
		 */
		public long cpuNanos() {
			return this.cpuNanos.sum();
		}

		void addCpu(long nanos) {
			this.cpuNanos.add(nanos);
		}

		/** The calling thread's CPU time so far (ns). */
		static long threadCpuNanos() {
			return THREADS.getCurrentThreadCpuTime();
		}

	}

	private final class SharedRuntime implements NodeRuntime {

		private final CallScope scope;

		private final Strand loop;

		private final Strand watchdog;

		private final Strand reactions;

		private final Strand application;

		SharedRuntime(CallScope scope) {
			this.scope = scope;
			this.loop = new Strand(SharedRuntimes.this.storePool, SharedRuntimes.this.timers, scope);
			this.watchdog = new Strand(SharedRuntimes.this.lightPool, SharedRuntimes.this.timers, scope);
			this.reactions = new Strand(SharedRuntimes.this.lightPool, SharedRuntimes.this.timers, scope);
			this.application = new Strand(SharedRuntimes.this.lightPool, SharedRuntimes.this.timers, scope);
		}

		@Override
		public Lane loop() {
			return this.loop;
		}

		@Override
		public Lane watchdog() {
			return this.watchdog;
		}

		@Override
		public Lane reactions() {
			return this.reactions;
		}

		@Override
		public Lane application() {
			return this.application;
		}

		@Override
		public <T> void call(Supplier<T> operation, BiConsumer<T, RuntimeException> reply) {
			this.scope.calls.incrementAndGet();
			CallScope outer = CallScope.CURRENT.get();
			CallScope.CURRENT.set(this.scope);
			T result;
			try {
				result = operation.get();
			}
			catch (RuntimeException ex) {
				CallScope.CURRENT.set(outer);
				reply.accept(null, ex);
				return;
			}
			finally {
				CallScope.CURRENT.set(outer);
			}
			reply.accept(result, null);
		}

		@Override
		public void shutdown() {
			this.loop.closeNow();
			this.watchdog.closeNow();
			this.reactions.close();
			this.application.close();
		}

		@Override
		public void awaitEvents(Duration timeout) {
			long deadline = System.nanoTime() + timeout.toNanos();
			this.reactions.awaitIdle(deadline);
			this.application.awaitIdle(deadline);
			this.reactions.closeNow();
			this.application.closeNow();
		}

		@Override
		public void halt() {
			this.loop.closeNow();
			this.watchdog.closeNow();
			this.reactions.closeNow();
			this.application.closeNow();
		}

	}

}
