package dev.membership.leadership;

import java.time.Duration;

import dev.membership.time.MonotonicClock;

/**
 * One uninterrupted period in which this node leads a group. Code that runs as leader uses {@link #epoch()} to fence
 * its writes (reject anything stamped with a lower epoch) and {@link #remaining()} to avoid starting work it cannot
 * finish while still leader.
 */
public final class LeadershipTerm {

	private final String group;

	private final long epoch;

	private final long deadlineNanos;

	private final MonotonicClock clock;

	public LeadershipTerm(String group, long epoch, long deadlineNanos, MonotonicClock clock) {
		this.group = group;
		this.epoch = epoch;
		this.deadlineNanos = deadlineNanos;
		this.clock = clock;
	}

	public String group() {
		return this.group;
	}

	public long epoch() {
		return this.epoch;
	}

	/** Local monotonic time at which this node stops believing it leads unless it renews first. */
	public long deadlineNanos() {
		return this.deadlineNanos;
	}

	/** How long this node will still believe it leads if no renewal succeeds from now on. */
	public Duration remaining() {
		return Duration.ofNanos(Math.max(0, this.deadlineNanos - this.clock.nanoTime()));
	}

	public boolean isValid() {
		return this.clock.nanoTime() - this.deadlineNanos < 0;
	}

	@Override
	public String toString() {
		return "LeadershipTerm[group=" + this.group + ", epoch=" + this.epoch + ", remaining=" + remaining() + "]";
	}

}
