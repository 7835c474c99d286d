package dev.membership.leadership;

/** What a scheduled job's fire does when the job's previous run still runs. */
public enum OverlappingFires {

	/** It does not run: recorded as {@code skipped}. */
	SKIP,

	/** It runs once the running one ended (one waits; a third is skipped). */
	BUFFER_ONE

}
