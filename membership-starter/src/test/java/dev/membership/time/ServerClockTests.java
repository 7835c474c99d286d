package dev.membership.time;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class ServerClockTests {

	private final AtomicLong mono = new AtomicLong(1_000_000_000L);

	private final ServerClock clock = new ServerClock(this.mono::get);

	private static final Instant SERVER = Instant.parse("2026-01-01T00:00:00Z");

	@Test
	void refusesToGuessBeforeTheFirstSample() {
		assertThat(this.clock.isSynchronized()).isFalse();
		assertThatIllegalStateException().isThrownBy(this.clock::estimate);
	}

	@Test
	void boundsContainTheServerTimeAtTheMidpointOfTheRoundTrip() {
		long sent = this.mono.get();
		long received = sent + Duration.ofMillis(10).toNanos();
		this.clock.offer(sent, received, SERVER);
		this.mono.set(received);
		// the server read its clock somewhere in [sent, received]: SERVER is within the bounds at any such moment
		assertThat(this.clock.lowerBoundAt(sent)).isBeforeOrEqualTo(SERVER);
		assertThat(this.clock.upperBoundAt(received)).isAfterOrEqualTo(SERVER.plusMillis(1));
		assertThat(this.clock.uncertainty()).isBetween(Duration.ofMillis(5), Duration.ofMillis(6));
	}

	@Test
	void theBoundsWidenAsTheSampleAges() {
		long sent = this.mono.get();
		this.clock.offer(sent, sent + 2_000_000, SERVER);
		Duration fresh = this.clock.uncertainty();
		this.mono.addAndGet(Duration.ofMinutes(10).toNanos());
		assertThat(this.clock.uncertainty()).isGreaterThan(fresh.plusMillis(100));
	}

	@Test
	void aLooserSampleNeverReplacesATighterOne() {
		long sent = this.mono.get();
		this.clock.offer(sent, sent + 2_000_000, SERVER);
		Instant before = this.clock.estimateAt(sent);
		this.clock.offer(sent + 3_000_000, sent + 503_000_000, SERVER.plusSeconds(30));
		assertThat(this.clock.estimateAt(sent)).isEqualTo(before);
		this.clock.offer(sent + 10_000_000, sent + 11_000_000, SERVER.plusSeconds(30));
		assertThat(this.clock.estimateAt(sent + 10_500_000)).isAfter(SERVER.plusSeconds(29));
	}

	@Test
	void actsOnAnExpiryOnlyOnceTheLowerBoundHasPassedIt() {
		long sent = this.mono.get();
		this.clock.offer(sent, sent + 4_000_000, SERVER);
		Instant expiry = SERVER.plusSeconds(15);
		long when = this.clock.monotonicWhenPassed(expiry);
		// strictly past the stored millisecond, and not much later than that
		assertThat(this.clock.lowerBoundAt(when)).isAfter(expiry);
		assertThat(this.clock.lowerBoundAt(when - 2_000_000)).isBefore(expiry);
	}

}
