package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Takes the database's clock samples that store replies carry (the stamps of heartbeats, renewals and acquisitions,
 * and {@code hello}) into the {@link ServerClock}, and says when this node may judge that a lease held by another node
 * has expired.
 * <p>
 * A lease's expiry is written in the clock of the primary that took the write, as its holder estimated it. When the
 * database's clock jumps (a failover to a primary whose clock differs, a change of the server's clock), leases written
 * before read as expiring early or late in the new clock, and no node can tell how long their holders still believe.
 * A holder's belief never depends on that clock: it ends by the holder's own deadline, at most a lease after its last
 * acknowledged renewal. So a node does not judge expiries (it takes only released leases) for one lease duration after
 * any moment from which it cannot rule out an unseen jump:
 * <ul>
 * <li>its first sample (it never saw the clock the leases were written in);</li>
 * <li>a sample after more than a lease without any (it may have missed a primary's whole time);</li>
 * <li>a sample that contradicts its estimate by more than the safety margin absorbs: small jumps, adding up to half
 * the margin within a lease, are only followed.</li>
 * </ul>
 * A lease write judged in the old clock and acknowledged in the new one (the reply shows the jump, see {@link #take})
 * grants nothing: an acquisition starts no term, a renewal does not move the belief's deadline. So a belief resting
 * on a lease written in the old clock ends within a lease of the jump, by its holder's own deadline, and every node
 * that could misread that lease waits that long. This protects against jumps at least two leases apart; keeping every
 * member on NTP keeps them within the margin.
 * Confined to the loop.
 */
final class ClockSamples {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final ServerClock clock;

	private final MembershipSettings settings;

	private final long leaseNanos;

	private final long toleratedNanos;

	/** The tolerated jumps of the last lease duration: when (local monotonic time) and how large. */
	private final ArrayDeque<long[]> recent = new ArrayDeque<>();

	private boolean sampled;

	private long lastSampleNanos;

	private long distrustUntilNanos;

	/** How many jumps beyond the margin the samples showed so far. */
	private long jumps;

	/** Database time at this node's first sample: when it started, as the others see it. */
	private @Nullable Instant startedAt;

	ClockSamples(ServerClock clock, MembershipSettings settings) {
		this.clock = clock;
		this.settings = settings;
		this.leaseNanos = settings.leaseDuration().toNanos();
		this.toleratedNanos = settings.safetyMargin().toNanos() / 2;
	}

	/** This node's start in database time: its first sample; null before it. */
	@Nullable Instant startedAt() {
		return this.startedAt;
	}

	/**
	 * How many jumps beyond the margin the samples showed so far: a lease write sent before a jump that a later sample
	 * showed was judged in the old clock, whichever reply showed it.
	 */
	long jumps() {
		return this.jumps;
	}

	/** Whether no reply brought a sample for the clock sync interval (or ever): then ask the store for its time. */
	boolean due(long nowNanos) {
		return !this.sampled || nowNanos - this.lastSampleNanos >= this.settings.clockSyncInterval().toNanos();
	}

	/** Whether this node may judge, at {@code nowNanos}, that a lease held by another node has expired. */
	boolean trustsExpiries(long nowNanos) {
		return this.sampled && nowNanos - this.distrustUntilNanos >= 0;
	}

	/** From when (local monotonic time) {@link #trustsExpiries} holds, as far as the samples so far tell. */
	long trustsExpiriesFrom() {
		return this.distrustUntilNanos;
	}

	/**
	 * Takes a time the store stamped between {@code sentNanos} and {@code receivedNanos} (none when null). Returns
	 * false when it showed that the database's clock jumped beyond what the safety margin absorbs: then the lease
	 * write the reply acknowledges was judged in the old clock, and must not start or extend a belief.
	 */
	boolean take(long sentNanos, long receivedNanos, @Nullable Instant serverTime) {
		if (serverTime == null) {
			return true;
		}
		long jump = this.clock.offer(sentNanos, receivedNanos, serverTime);
		if (this.startedAt == null) {
			this.startedAt = this.clock.estimateAt(receivedNanos);
		}
		if (!this.sampled || sentNanos - this.lastSampleNanos > this.leaseNanos) {
			distrustUntil(receivedNanos + this.leaseNanos);
		}
		this.sampled = true;
		this.lastSampleNanos = receivedNanos;
		if (jump == 0 || tolerated(jump, receivedNanos)) {
			return true;
		}
		this.recent.clear();
		this.jumps++;
		distrustUntil(receivedNanos + this.leaseNanos);
		log.warn("The database's clock jumped by {} against the estimate of node {} (a failover to a primary whose "
				+ "clock differs, or a change of the server's clock): leases written before read wrong in the new clock, "
				+ "so for {} this node takes over only released ones. Keep every MongoDB member and mongos on NTP.",
				signed(jump), this.settings.nodeId(), this.settings.leaseDuration());
		return false;
	}

	private void distrustUntil(long untilNanos) {
		if (!this.sampled || untilNanos - this.distrustUntilNanos > 0) {
			this.distrustUntilNanos = untilNanos;
		}
	}

	/** Whether the jumps of the last lease duration, this one included, still fit in half the safety margin. */
	private boolean tolerated(long jump, long atNanos) {
		while (!this.recent.isEmpty() && atNanos - this.recent.peekFirst()[0] > this.leaseNanos) {
			this.recent.removeFirst();
		}
		long sum = Math.abs(jump);
		for (long[] earlier : this.recent) {
			sum += earlier[1];
		}
		if (sum > this.toleratedNanos) {
			return false;
		}
		this.recent.addLast(new long[] { atNanos, Math.abs(jump) });
		log.debug("The database's clock moved {} against this node's estimate; within the safety margin", signed(jump));
		return true;
	}

	private static String signed(long nanos) {
		return ((nanos < 0) ? "-" : "+") + Duration.ofNanos(Math.abs(nanos)).toMillis() + " ms";
	}

}
