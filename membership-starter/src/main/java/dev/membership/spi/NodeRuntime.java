package dev.membership.spi;

import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Where a node's work runs: its loop (every store call, one at a time, but the run
 * history's), its watchdog (deadlines, even while the loop waits on a call), the run
 * history's writes, and two event lanes (the starter's reactions, the application's
 * listener). The default gives each a thread of its own; a simulator runs every node of a
 * cluster on one thread in virtual time. The node's protocol code is the same either way.
 * For tests and tools, not for applications.
 */
public interface NodeRuntime {

	/**
	 * The loop: tasks run one at a time, in order; every store call is made from here.
	 */
	Lane loop();

	/** Timers that must fire even while the loop waits on a store call. */
	Lane watchdog();

	/** The starter's own reactions to events. */
	Lane reactions();

	/**
	 * The application's listener, apart from the reactions so that it cannot hold them
	 * up.
	 */
	Lane application();

	/**
	 * The run history's writes, apart from the loop so that a slow write (a backlog of
	 * expired runs to delete, a busy server) cannot hold a renewal up. By default the
	 * loop itself: a simulator keeps every call on one lane.
	 */
	default Lane history() {
		return loop();
	}

	/**
	 * Makes a store call for the loop and hands its outcome (a result, or the failure) to
	 * {@code reply} on the loop. By default synchronously, on the calling loop thread; a
	 * simulator delays, loses or fails calls.
	 */
	default <T> void call(Supplier<T> operation, BiConsumer<T, RuntimeException> reply) {
		T result;
		try {
			result = operation.get();
		}
		catch (RuntimeException ex) {
			reply.accept(null, ex);
			return;
		}
		reply.accept(result, null);
	}

	/**
	 * Stops the loop and the watchdog at once; the event lanes finish what they have been
	 * given.
	 */
	void shutdown();

	/**
	 * Waits at most {@code timeout} for the event lanes to finish after
	 * {@link #shutdown()}, then drops the rest.
	 */
	void awaitEvents(Duration timeout);

	/** Drops everything at once, like a crash. */
	void halt();

	/**
	 * Tasks that run one at a time, in order of submission (delayed ones at their due
	 * time).
	 */
	interface Lane {

		/** Runs {@code task} soon; false when the lane was shut down. */
		boolean execute(Runnable task);

		/**
		 * Runs {@code task} once {@code delayNanos} of the node's monotonic clock have
		 * passed; null when the lane was shut down.
		 */
		@Nullable Timer schedule(Runnable task, long delayNanos);

		/**
		 * Whether the caller runs on this lane: the engine checks that the state it
		 * confines to the loop is.
		 */
		boolean isCurrent();

	}

	/** A scheduled task that can be called off. */
	interface Timer {

		void cancel();

	}

}
