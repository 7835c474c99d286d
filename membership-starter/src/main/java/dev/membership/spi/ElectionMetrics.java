package dev.membership.spi;

import java.time.Duration;

/**
 * Outcomes of the election loop's store calls, for metrics. Called on the election thread
 * (a dropped run's record: on the run's); must not block. What it throws is logged and
 * ignored: it never changes what the node does.
 */
public interface ElectionMetrics {

	enum AcquisitionOutcome {

		ACQUIRED, CONFLICT, ERROR

	}

	enum RenewalOutcome {

		RENEWED, LOST, ERROR

	}

	default void acquisition(String group, AcquisitionOutcome outcome) {
	}

	default void renewal(String group, RenewalOutcome outcome) {
	}

	/**
	 * A sample of the database's clock contradicted this node's estimate by {@code jump}
	 * (positive: ahead), beyond what the safety margin absorbs: a failover to a primary
	 * whose clock differs, a change of the server's clock, or stamps from more than one
	 * clock. For a lease from now on, this node takes over only released leases.
	 */
	default void clockJumped(Duration jump) {
	}

	/**
	 * {@code count} scheduled fires of {@code job} of {@code group} never ran: missed
	 * beyond their catch-up window, or not caught up by the job's policy (the leader that
	 * found them says so, once).
	 */
	default void firesMissed(String group, String job, long count) {
	}

	/**
	 * {@code count} runs' records were dropped from this node's buffer for the run
	 * history before they could be written (the store was unreachable for long and the
	 * buffer was full).
	 */
	default void runsDropped(long count) {
	}

	static ElectionMetrics none() {
		return new ElectionMetrics() {
		};
	}

}
