package dev.membership.engine.clock;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.MonotonicClock;

/**
 * Estimates the database server's clock from this node's monotonic clock, so that lease
 * and liveness decisions use database time without ever reading the node's wall clock.
 * <p>
 * A sample is a server time read somewhere between sending a request and receiving its
 * reply: the server's clock at the midpoint lies within half the round trip of it (plus
 * the reply's millisecond truncation). The bound then widens with an assumed worst-case
 * drift between the two clocks as the sample ages. A new sample replaces the current one
 * only when it is at least as tight, so one slow round trip never makes the estimate
 * worse; but a sample whose interval does not meet the estimate's bounds shows that the
 * clock it came from is not the one the estimate follows (a failover to a primary whose
 * clock differs, a change of the server's clock, or a stall of this host's monotonic
 * clock): it replaces the estimate whatever its width, and {@link #offer} reports the
 * jump.
 */
public final class ServerClock {

	/** 200 ppm: far above the drift of any sane quartz or NTP-disciplined clock. */
	static final double MAX_DRIFT = 200e-6;

	private static final long MILLIS_TRUNCATION_NANOS = 1_000_000L;

	private final MonotonicClock clock;

	private volatile Anchor anchor;

	public ServerClock(MonotonicClock clock) {
		this.clock = clock;
	}

	/**
	 * Offers a sample: the request was sent at {@code sentNanos} and the reply received
	 * at {@code receivedNanos} (both monotonic), and the server reported
	 * {@code serverTime} (millisecond resolution, truncated). Returns 0 when the sample
	 * agrees with the estimate (or is the first), else the jump: how far the sampled
	 * clock is from the estimate (positive: ahead), in nanoseconds. The estimate follows
	 * the sampled clock from then on.
	 */
	long offer(long sentNanos, long receivedNanos, Instant serverTime) {
		long rtt = Math.max(0, receivedNanos - sentNanos);
		long mid = sentNanos + rtt / 2;
		Anchor candidate = new Anchor(mid, serverTime.plusNanos(MILLIS_TRUNCATION_NANOS / 2),
				rtt / 2 + rtt % 2 + MILLIS_TRUNCATION_NANOS / 2);
		Anchor current = this.anchor;
		if (current == null) {
			this.anchor = candidate;
			return 0;
		}
		long offset = Duration.between(current.estimateAt(mid), candidate.serverTime).toNanos();
		boolean contradicts = Math.abs(offset) > candidate.uncertaintyNanos + current.uncertaintyAt(mid);
		if (contradicts || candidate.uncertaintyNanos <= current.uncertaintyAt(mid)) {
			this.anchor = candidate;
		}
		return contradicts ? offset : 0;
	}

	boolean isSynchronized() {
		return this.anchor != null;
	}

	public Instant estimate() {
		return estimateAt(this.clock.nanoTime());
	}

	/** The estimate now, or null before the first sample; from any thread. */
	public @Nullable Instant estimateIfSynchronized() {
		Anchor a = this.anchor;
		return (a != null) ? a.estimateAt(this.clock.nanoTime()) : null;
	}

	public Instant estimateAt(long monoNanos) {
		return requireAnchor().estimateAt(monoNanos);
	}

	/** A time the server clock has certainly reached at {@code monoNanos}. */
	public Instant lowerBoundAt(long monoNanos) {
		Anchor a = requireAnchor();
		return estimateAt(monoNanos).minusNanos(a.uncertaintyAt(monoNanos));
	}

	/** A time the server clock has certainly not passed at {@code monoNanos}. */
	public Instant upperBoundAt(long monoNanos) {
		Anchor a = requireAnchor();
		return estimateAt(monoNanos).plusNanos(a.uncertaintyAt(monoNanos));
	}

	/** Current uncertainty of the estimate (half-width of the interval). */
	Duration uncertainty() {
		Anchor a = requireAnchor();
		return Duration.ofNanos(a.uncertaintyAt(this.clock.nanoTime()));
	}

	/**
	 * The local monotonic time from which the server clock has certainly passed
	 * {@code serverTime}: when to act on a lease expiry without acting early.
	 */
	public long monotonicWhenPassed(Instant serverTime) {
		Anchor a = requireAnchor();
		// databases keep milliseconds: be past the stored instant, not on it
		long ahead = Duration.between(a.serverTime, serverTime).toNanos() + a.uncertaintyNanos
				+ MILLIS_TRUNCATION_NANOS;
		if (ahead <= 0) {
			return a.monoNanos + ahead;
		}
		// uncertainty grows with age too: solve lower bound(mono) == serverTime
		return a.monoNanos + (long) Math.ceil(ahead / (1 - MAX_DRIFT));
	}

	/**
	 * The local monotonic time from which the server clock may have passed
	 * {@code serverTime}, as far as the estimate tells: the earliest it could. A timer
	 * for a far instant wakes then, and is armed again by the estimate as it stands by
	 * then, so that how late it fires does not grow with how far away it was.
	 */
	public long monotonicWhenMayHavePassed(Instant serverTime) {
		Anchor a = requireAnchor();
		long ahead = Duration.between(a.serverTime, serverTime).toNanos() - a.uncertaintyNanos;
		if (ahead <= 0) {
			return a.monoNanos + ahead;
		}
		// the upper bound grows with age too: solve upper bound(mono) == serverTime
		return a.monoNanos + (long) Math.floor(ahead / (1 + MAX_DRIFT));
	}

	private Anchor requireAnchor() {
		Anchor a = this.anchor;
		if (a == null) {
			throw new IllegalStateException("Server clock not synchronized yet");
		}
		return a;
	}

	private record Anchor(long monoNanos, Instant serverTime, long uncertaintyNanos) {

		public Instant estimateAt(long atNanos) {
			return this.serverTime.plusNanos(atNanos - this.monoNanos);
		}

		long uncertaintyAt(long atNanos) {
			return this.uncertaintyNanos + (long) Math.ceil(Math.abs(atNanos - this.monoNanos) * MAX_DRIFT);
		}

	}

}
