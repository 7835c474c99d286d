package dev.membership.spi;

import org.jspecify.annotations.Nullable;

/**
 * Told of every run of work registered with a term, as it begins and ends: what the
 * starter's observations (Micrometer) and run history are made of. {@link #began} is
 * called on the run's thread for work bound to a thread ({@link RunInfo#onThread()}), and
 * {@link Ended#ended} on that same thread, so an observer may open a scope (a tracing
 * span) for the run's duration. Must be fast; what an observer throws is logged and never
 * reaches the run.
 */
public interface RunObserver {

	/** A run begins; returns what to call when it ends (called once). */
	Ended began(RunInfo run);

	/** The end of one run. */
	@FunctionalInterface
	interface Ended {

		/**
		 * @param outcome how it ended
		 * @param error what it threw, for {@link RunOutcome#ERROR} (and an
		 * {@link InterruptedException} maybe)
		 */
		void ended(RunOutcome outcome, @Nullable Throwable error);

	}

}
