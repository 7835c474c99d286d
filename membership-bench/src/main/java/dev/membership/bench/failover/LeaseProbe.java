package dev.membership.bench.failover;

import java.time.Duration;
import java.time.Instant;

/**
 * Our contenders: where the crashed leader's lease ended in the database, and when the
 * successor learned it leads.
 */
interface LeaseProbe {

	/**
	 * When the default group's lease in the database expires (database time, which is
	 * this machine's clock here).
	 */
	Instant leaseExpiry(Duration lease);

	/** Wall-clock milliseconds at which {@code memberId} learned it leads. */
	Long electedAtMillis(String memberId);

}
