package dev.membership.engine.clock;

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
		// the server read its clock somewhere in [sent, received]: SERVER is within the
		// bounds at any such moment
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
	void aLooserSampleThatAgreesNeverReplacesATighterOne() {
		long sent = this.mono.get();
		assertThat(this.clock.offer(sent, sent + 2_000_000, SERVER)).isZero();
		Instant before = this.clock.estimateAt(sent);
		// sent 3 ms later, received 500 ms later: the server's 3 ms later lies in its
		// interval
		assertThat(this.clock.offer(sent + 3_000_000, sent + 503_000_000, SERVER.plusMillis(3))).isZero();
		assertThat(this.clock.estimateAt(sent)).isEqualTo(before);
		assertThat(this.clock.offer(sent + 10_000_000, sent + 11_000_000, SERVER.plusMillis(10))).isZero();
		assertThat(this.clock.uncertainty()).isLessThan(Duration.ofMillis(2));
	}

	@Test
	void aSampleThatContradictsTheEstimateIsAJumpAndTheEstimateFollowsIt() {
		long sent = this.mono.get();
		this.clock.offer(sent, sent + 2_000_000, SERVER);
		// a failover to a primary whose clock is 12 s ahead: reported, and taken however
		// loose it is
		long jump = this.clock.offer(sent + 3_000_000, sent + 503_000_000, SERVER.plusSeconds(12));
		assertThat(Duration.ofNanos(jump)).isBetween(Duration.ofMillis(11_740), Duration.ofMillis(11_760));
		assertThat(this.clock.estimateAt(sent + 253_000_000)).isBetween(SERVER.plusSeconds(12),
				SERVER.plusMillis(12_001));
		// and back, 12 s behind: a jump the other way
		assertThat(this.clock.offer(sent + 600_000_000, sent + 601_000_000, SERVER.plusMillis(600)))
			.isLessThan(-Duration.ofSeconds(11).toNanos());
		assertThat(this.clock.offer(sent + 700_000_000, sent + 701_000_000, SERVER.plusMillis(700))).isZero();
	}

	@Test
	void aSampleJustOutsideTheBoundsIsAJumpAndJustInsideIsNot() {
		long sent = this.mono.get();
		this.clock.offer(sent, sent + 2_000_000, SERVER); // +-1.5 ms
		long later = sent + Duration.ofSeconds(1).toNanos();
		// the next sample, +-1.5 ms as well: the estimate's bound at that time is 1.5 ms
		// + 0.2 ms of drift
		assertThat(this.clock.offer(later, later + 2_000_000, SERVER.plusMillis(1_003))).isZero();
		assertThat(this.clock.offer(later + 10_000_000, later + 12_000_000, SERVER.plusMillis(1_017))).isNotZero();
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

	/**
	 * A far instant may come first when the upper bound reaches it: a day ahead, that is
	 * the drift bound's 17 s before the lower bound does. A timer wakes then, and is
	 * armed again by the estimate as it stands by then.
	 */
	@Test
	void aFarInstantMayHaveComeOnceTheUpperBoundReachesIt() {
		long sent = this.mono.get();
		this.clock.offer(sent, sent + 4_000_000, SERVER);
		Instant tomorrow = SERVER.plus(Duration.ofDays(1));
		long may = this.clock.monotonicWhenMayHavePassed(tomorrow);
		long surely = this.clock.monotonicWhenPassed(tomorrow);
		assertThat(this.clock.upperBoundAt(may)).isBeforeOrEqualTo(tomorrow);
		assertThat(this.clock.upperBoundAt(may + 1_000_000)).isAfter(tomorrow);
		assertThat(Duration.ofNanos(surely - may)).isBetween(Duration.ofSeconds(34), Duration.ofSeconds(35));
	}

}
