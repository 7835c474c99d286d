package dev.membership.simulation;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

import dev.membership.engine.MembershipNode;

/**
 * The database's clock in a simulation: virtual time from an arbitrary origin, moved by
 * the CLOCK_JUMP fault (a failover to a primary whose clock is ahead or behind), at most
 * once per two leases (the documented limit). Small jumps (up to 300 ms) stay within the
 * safety margin, which absorbs them: every invariant holds across them. Large ones (1 to
 * 30 s, ahead or behind) make the leases written before them read wrong in the new clock;
 * what must hold across them is that no two nodes believe at once, that epochs increase
 * and that no work overlaps after a graceful stop. The checks that tie a belief to the
 * store's lease and its expiry resume once every running node's estimate follows the new
 * clock again, plus a lease, an interval and an operation timeout, by when every belief
 * that rested on the old clock has ended.
 */
final class DatabaseClock {

	/**
	 * An estimate this far from the database's clock follows another clock (the small
	 * jumps stay below it).
	 */
	private static final long OTHER_CLOCK_NANOS = Duration.ofMillis(500).toNanos();

	private final Instant origin;

	private final LongSupplier virtualNow;

	private long offsetNanos;

	private long maxOffsetNanos;

	private long largestBackwardNanos;

	/**
	 * The latest the clock has read so far, as virtual time plus offset: a stamp written
	 * then reads that late now.
	 */
	private long latestReadNanos = Long.MIN_VALUE;

	private long lastJumpAt = Long.MIN_VALUE / 2;

	private boolean unsettled;

	private int largeJumps;

	private int smallJumps;

	private long settlesAt = -1;

	/** Each jump backwards: when (virtual time), and how far. */
	private final java.util.List<long[]> backwards = new java.util.ArrayList<>();

	DatabaseClock(Instant origin, LongSupplier virtualNow) {
		this.origin = origin;
		this.virtualNow = virtualNow;
	}

	Instant now() {
		return this.origin.plusNanos(this.virtualNow.getAsLong() + this.offsetNanos);
	}

	/**
	 * The latest the clock has read at virtual time {@code atNanos}, whichever primary
	 * stamped it.
	 */
	Instant latestAt(long atNanos) {
		return this.origin.plusNanos(atNanos + this.maxOffsetNanos);
	}

	/** When (virtual time) the clock last jumped, however little. */
	long lastJumpAt() {
		return this.lastJumpAt;
	}

	/** The jumps so far: large ones (beyond the safety margin) and small ones. */
	int[] jumps() {
		return new int[] { this.largeJumps, this.smallJumps };
	}

	/**
	 * How far the clock jumped backwards in all within the last {@code windowNanos}: a
	 * node whose estimate has not yet met a reading that contradicts it (its readings
	 * were slow, its calls lost) still counts from before those jumps, and may act that
	 * much early by the clock as it reads now.
	 */
	long backwardWithin(long windowNanos) {
		long from = this.virtualNow.getAsLong() - windowNanos;
		return this.backwards.stream().filter((b) -> b[0] - from >= 0).mapToLong((b) -> b[1]).sum();
	}

	/**
	 * How much later than its holder meant a lease written before a jump backwards can
	 * expire.
	 */
	Duration largestBackwardJump() {
		return Duration.ofNanos(this.largestBackwardNanos);
	}

	/**
	 * How far the clock now reads behind the latest it has read: a renewal or heartbeat
	 * stamped before a jump backwards reads that much more recent now, so its writer
	 * counts as live that much longer (zero once the clock has caught up with its latest
	 * reading again).
	 */
	Duration behindLatest() {
		if (this.latestReadNanos == Long.MIN_VALUE) {
			return Duration.ZERO; // never jumped (the difference below would overflow)
		}
		return Duration.ofNanos(Math.max(0, this.latestReadNanos - (this.virtualNow.getAsLong() + this.offsetNanos)));
	}

	/**
	 * A failover to a primary whose clock differs; returns the jump (zero: too soon after
	 * the last one).
	 */
	Duration jump(Random random, Duration lease) {
		long now = this.virtualNow.getAsLong();
		boolean small = random.nextBoolean();
		if (now - this.lastJumpAt < lease.multipliedBy(2).toNanos()) {
			return Duration.ZERO;
		}
		long size = small ? Duration.ofMillis(1 + random.nextInt(300)).toNanos()
				: Duration.ofMillis(1_000 + random.nextInt(29_000)).toNanos();
		long jump = random.nextBoolean() ? size : -size;
		this.latestReadNanos = Math.max(this.latestReadNanos, now + this.offsetNanos);
		this.offsetNanos += jump;
		this.maxOffsetNanos = Math.max(this.maxOffsetNanos, this.offsetNanos);
		if (jump < 0) {
			this.largestBackwardNanos = Math.max(this.largestBackwardNanos, -jump);
			this.backwards.add(new long[] { now, -jump });
		}
		this.lastJumpAt = now;
		if (small) {
			this.smallJumps++;
		}
		else {
			this.largeJumps++;
			this.unsettled = true;
			this.settlesAt = -1;
		}
		return Duration.ofNanos(jump);
	}

	/**
	 * Whether the lease checks apply: no large jump yet, or every running node's estimate
	 * has followed the last one for {@code tail}.
	 */
	boolean settled(List<MembershipNode> running, Duration tail) {
		if (!this.unsettled) {
			return true;
		}
		Instant now = now();
		for (MembershipNode node : running) {
			Instant estimate = node.serverTimeEstimate().orElse(null);
			if (estimate != null && Math.abs(Duration.between(now, estimate).toNanos()) > OTHER_CLOCK_NANOS) {
				this.settlesAt = -1;
				return false;
			}
		}
		long at = this.virtualNow.getAsLong();
		if (this.settlesAt < 0) {
			this.settlesAt = at + tail.toNanos();
		}
		if (at - this.settlesAt < 0) {
			return false;
		}
		this.unsettled = false;
		return true;
	}

}
