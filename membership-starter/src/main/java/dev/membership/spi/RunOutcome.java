package dev.membership.spi;

/** How a run ended. */
public enum RunOutcome {

	/** It returned (or its pipeline completed). */
	SUCCESS,

	/** It threw (or its pipeline failed). */
	ERROR,

	/**
	 * It was told to stop when its term ended or was handed over
	 * ({@code interruptOnRevoke}: interrupted, or its subscription cancelled), or it
	 * threw {@link InterruptedException}.
	 */
	INTERRUPTED,

	/**
	 * A scheduled fire that never ran: missed beyond its catch-up window, or not caught
	 * up by its policy.
	 */
	MISSED,

	/**
	 * A scheduled fire that did not run on its own: the job's previous run still ran, or
	 * it was coalesced.
	 */
	SKIPPED;

	/** The lower-case name used in tags, the history and the endpoint. */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
