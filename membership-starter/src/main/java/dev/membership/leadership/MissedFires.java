package dev.membership.leadership;

/**
 * What a scheduled job's new leader does with fires whose instant passed while no node
 * could run them (a failover, the whole cluster down, a run that overran), within the
 * job's catch-up window. A missed fire beyond the window is recorded as {@code missed},
 * never run.
 */
public enum MissedFires {

	/**
	 * One run for all of them, at once (Quartz's "fire once now"): the others are
	 * recorded as coalesced into it.
	 */
	COALESCE,

	/** One run for each, oldest first, one after another. */
	RUN_ALL,

	/** None: each is recorded as {@code missed}. */
	SKIP

}
