package dev.membership.test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import dev.membership.spi.MonotonicClock;

/**
 * Time that moves only when a test says so: the nodes' monotonic clock and the in-memory
 * database's clock, both on the one {@link VirtualScheduler}'s time, so that nothing
 * expires on its own while a test looks.
 */
final class VirtualTime implements MonotonicClock {

	private final Instant origin;

	private final VirtualScheduler scheduler;

	VirtualTime(Instant origin, VirtualScheduler scheduler) {
		this.origin = origin;
		this.scheduler = scheduler;
	}

	@Override
	public long nanoTime() {
		return this.scheduler.now();
	}

	/** The database's clock on the same time line. */
	Clock wallClock() {
		return new Clock() {

			@Override
			public ZoneId getZone() {
				return ZoneOffset.UTC;
			}

			@Override
			public Clock withZone(ZoneId zone) {
				throw new UnsupportedOperationException("Virtual time is UTC");
			}

			@Override
			public Instant instant() {
				return VirtualTime.this.origin.plusNanos(VirtualTime.this.scheduler.now());
			}

		};
	}

}
