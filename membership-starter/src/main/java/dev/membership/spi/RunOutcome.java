package dev.membership.spi;

/** How a run ended. */
public enum RunOutcome {

	/** It returned (or its pipeline completed). */
	SUCCESS,

	/** It threw (or its pipeline failed). */
	ERROR,

	/**
	 * It was told to stop when its term ended or was handed over ({@code interruptOnRevoke}: interrupted, or its
	 * subscription cancelled), or it threw {@link InterruptedException}.
	 */
	INTERRUPTED;

	/** The lower-case name used in tags, the history and the endpoint. */
	public String tag() {
		return name().toLowerCase(java.util.Locale.ROOT);
	}

}
