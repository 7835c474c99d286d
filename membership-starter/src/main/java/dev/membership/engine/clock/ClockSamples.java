package dev.membership.engine.clock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.MembershipSettings;

/**
 * Takes the database's clock samples that store replies carry (the stamps of heartbeats,
 * renewals and acquisitions, and {@code hello}) into the {@link ServerClock}, and says
 * when this node may judge that a lease held by another node has expired.
 * <p>
 * A lease's expiry is written in the clock of the primary that took the write, as its
 * holder estimated it. When the database's clock jumps (a failover to a primary whose
 * clock differs, a change of the server's clock), leases written before read as expiring
 * early or late in the new clock, and no node can tell how long their holders still
 * believe. A holder's belief never depends on that clock: it ends by the holder's own
 * deadline, at most a lease after its last acknowledged renewal. So a node does not judge
 * expiries (it takes only released leases) for one lease duration after any moment from
 * which it cannot rule out an unseen jump:
 * <ul>
 * <li>its first sample (it never saw the clock the leases were written in);</li>
 * <li>a sample after more than a lease without any (it may have missed a primary's whole
 * time);</li>
 * <li>a sample that contradicts its estimate by more than the safety margin absorbs:
 * small jumps, adding up to half the margin within a lease, are only followed.</li>
 * </ul>
 * A lease write judged in the old clock and acknowledged in the new one (the reply shows
 * the jump, see {@link #take}) grants nothing: an acquisition starts no term, a renewal
 * does not move the belief's deadline. So a belief resting on a lease written in the old
 * clock ends within a lease of the jump, by its holder's own deadline, and every node
 * that could misread that lease waits that long. This protects against jumps at least two
 * leases apart; keeping every member on NTP keeps them within the margin. Confined to the
 * loop.
 */
public final class ClockSamples {

	private static final Logger log = LoggerFactory.getLogger(ClockSamples.class);

	private final ServerClock clock;

	private final MembershipSettings settings;

	private final long leaseNanos;

	private final long toleratedNanos;

	/**
	 * The tolerated jumps of the last lease duration: when (local monotonic time) and how
	 * large.
	 */
	private final ArrayDeque<long[]> recent = new ArrayDeque<>();

	private boolean sampled;

	private long lastSampleNanos;

	private long distrustUntilNanos;

	/** How many jumps beyond the margin the samples showed so far. */
	private long jumps;

	/**
	 * Database time at this node's first sample: when it started, as the others see it.
	 */
	private @Nullable Instant startedAt;

	private final ElectionMetrics metrics;

	public ClockSamples(ServerClock clock, MembershipSettings settings, ElectionMetrics metrics) {
		this.clock = clock;
		this.settings = settings;
		this.metrics = metrics;
		this.leaseNanos = settings.leaseDuration().toNanos();
		this.toleratedNanos = settings.safetyMargin().toNanos() / 2;
	}

	/** This node's start in database time: its first sample; null before it. */
	public @Nullable Instant startedAt() {
		return this.startedAt;
	}

	/**
	 * How many jumps beyond the margin the samples showed so far: a lease write sent
	 * before a jump that a later sample showed was judged in the old clock, whichever
	 * reply showed it.
	 */
	public long jumps() {
		return this.jumps;
	}

	/**
	 * Whether no reply brought a sample for the clock sync interval (or ever): then ask
	 * the store for its time.
	 */
	public boolean due(long nowNanos) {
		return !this.sampled || nowNanos - this.lastSampleNanos >= this.settings.clockSyncInterval().toNanos();
	}

	/**
	 * Whether this node may judge, at {@code nowNanos}, that a lease held by another node
	 * has expired.
	 */
	public boolean trustsExpiries(long nowNanos) {
		return this.sampled && nowNanos - this.distrustUntilNanos >= 0;
	}

	/**
	 * From when (local monotonic time) {@link #trustsExpiries} holds, as far as the
	 * samples so far tell.
	 */
	public long trustsExpiriesFrom() {
		return this.distrustUntilNanos;
	}

	/**
	 * Takes a time the store stamped between {@code sentNanos} and {@code receivedNanos}
	 * (none when null). Returns false when it showed that the database's clock jumped
	 * beyond what the safety margin absorbs: then the lease write the reply acknowledges
	 * was judged in the old clock, and must not start or extend a belief.
	 */
	public boolean take(long sentNanos, long receivedNanos, @Nullable Instant serverTime) {
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
		this.metrics.clockJumped(Duration.ofNanos(jump));
		if (jumpedAgainAndAgain(receivedNanos)) {
			log.error("The database's clock jumped {} times within {} against the estimate of node {}: its stamps come "
					+ "from more than one clock, which no failover explains (MongoDB: are the membership collections sharded? "
					+ "each shard's primary then stamps with its own clock). This node never trusts an expiry again "
					+ "(leases of crashed holders are not taken over). Keep the membership data on one server at a "
					+ "time, and every database server, replica and router on NTP.", this.recentJumps.size(),
					this.settings.leaseDuration().multipliedBy(2), this.settings.nodeId());
			return false;
		}
		log.warn("The database's clock jumped by {} against the estimate of node {} (a failover to a primary whose "
				+ "clock differs, or a change of the server's clock): leases written before read wrong in the new clock, "
				+ "so for {} this node takes over only released ones. Keep every database server, replica and router on NTP.",
				signed(jump), this.settings.nodeId(), this.settings.leaseDuration());
		return false;
	}

	private void distrustUntil(long untilNanos) {
		if (!this.sampled || untilNanos - this.distrustUntilNanos > 0) {
			this.distrustUntilNanos = untilNanos;
		}
	}

	/** When the jumps of the last two leases were seen (local monotonic time). */
	private final ArrayDeque<Long> recentJumps = new ArrayDeque<>();

	/**
	 * Whether jumps come again and again: three or more within two leases, where a
	 * failover or a clock change makes one. Said once per run of them.
	 */
	private boolean jumpedAgainAndAgain(long atNanos) {
		while (!this.recentJumps.isEmpty() && atNanos - this.recentJumps.peekFirst() > 2 * this.leaseNanos) {
			this.recentJumps.removeFirst();
		}
		this.recentJumps.addLast(atNanos);
		return this.recentJumps.size() == 3;
	}

	/**
	 * Whether the jumps of the last lease duration, this one included, still fit in half
	 * the safety margin.
	 */
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
