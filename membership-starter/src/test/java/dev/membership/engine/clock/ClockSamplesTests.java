package dev.membership.engine.clock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;

import dev.membership.spi.MembershipSettings;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When a node may judge another node's lease expired, at fixed instants: not for a lease
 * after its first sample, after a gap of more than a lease without samples, or after a
 * jump of the database's clock beyond what the safety margin absorbs (defaults: lease 15
 * s, margin 1.5 s, so jumps adding up to 750 ms within a lease are absorbed).
 */
@org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
class ClockSamplesTests {

	private static final Instant SERVER = Instant.parse("2026-01-01T00:00:00Z");

	private static final long MS = 1_000_000L;

	private static final long S = 1_000 * MS;

	private final AtomicLong mono = new AtomicLong(1_000 * S);

	private final java.util.List<java.time.Duration> jumps = new java.util.ArrayList<>();

	private final ClockSamples samples = new ClockSamples(new ServerClock(this.mono::get),
			MembershipSettings.builder("n").build(), new dev.membership.spi.ElectionMetrics() {
				@Override
				public void clockJumped(java.time.Duration jump) {
					ClockSamplesTests.this.jumps.add(jump);
				}
			});

	/**
	 * A call sent at {@code at} (seconds from the start), answered 2 ms later, stamped
	 * {@code offset} off true time.
	 */
	private boolean sample(double at, long offsetMillis) {
		long sent = 1_000 * S + (long) (at * S);
		this.mono.set(sent + 2 * MS);
		return this.samples.take(sent, sent + 2 * MS, SERVER.plusNanos((long) (at * S) + MS).plusMillis(offsetMillis));
	}

	/** Samples every 5 s from 0 to {@code until} seconds, on the same clock. */
	private void steadyUntil(int until) {
		for (int at = 0; at <= until; at += 5) {
			assertThat(sample(at, 0)).isTrue();
		}
	}

	private boolean trustsAt(double at) {
		return this.samples.trustsExpiries(1_000 * S + (long) (at * S));
	}

	@Test
	void aNodeNewToTheClockTrustsNoExpiryForALease() {
		assertThat(trustsAt(0)).isFalse();
		assertThat(sample(0, 0)).isTrue();
		assertThat(trustsAt(14.9)).isFalse();
		assertThat(sample(5, 0)).isTrue();
		assertThat(sample(10, 0)).isTrue();
		assertThat(trustsAt(15.01)).isTrue();
	}

	@Test
	void aGapOfMoreThanALeaseWithoutSamplesIsTrustedOnlyALeaseAfterContact() {
		steadyUntil(15);
		assertThat(trustsAt(20)).isTrue();
		assertThat(sample(29, 0)).isTrue(); // 14 s since the last: nothing missed
		assertThat(trustsAt(29)).isTrue();
		// 15.5 s since the last: a whole primary's time may have passed
		assertThat(sample(44.5, 0)).isTrue();
		assertThat(trustsAt(45)).isFalse();
		assertThat(trustsAt(59.6)).isTrue();
	}

	@Test
	void smallJumpsAreAbsorbedUntilTheyAddUpToHalfTheMargin() {
		steadyUntil(15);
		assertThat(sample(17, 400)).isTrue(); // followed: 400 ms of the 750
		assertThat(trustsAt(17.1)).isTrue();
		assertThat(sample(18, 700)).isTrue(); // 300 more: 700 in all
		// 100 more: 800 within a lease, beyond half the margin
		assertThat(sample(19, 800)).isFalse();
		assertThat(trustsAt(19.1)).isFalse();
		assertThat(trustsAt(34.1)).isTrue();
	}

	@Test
	void aJumpOfSecondsEitherWayShowsInTheReplyAndStopsTrustForALease() {
		steadyUntil(15);
		assertThat(sample(20, 12_000)).isFalse();
		assertThat(trustsAt(34.9)).isFalse();
		assertThat(sample(25, 12_000)).isTrue(); // the new clock, followed
		assertThat(trustsAt(35.01)).isTrue();
		assertThat(sample(30, 12_000)).isTrue();
		assertThat(sample(35, 2_000)).isFalse(); // ten seconds back
		assertThat(trustsAt(49.9)).isFalse();
	}

	@Test
	void askingTheStoreForItsTimeIsDueAtStartAndAfterTheSyncInterval() {
		assertThat(this.samples.due(this.mono.get())).isTrue();
		sample(0, 0);
		assertThat(this.samples.due(this.mono.get() + Duration.ofSeconds(29).toNanos())).isFalse();
		assertThat(this.samples.due(this.mono.get() + Duration.ofSeconds(30).toNanos())).isTrue();
	}

	@Test
	void stampsFromTwoClocksAreToldAsSuchAndEveryJumpIsCounted(CapturedOutput output) {
		steadyUntil(20);
		// a sharded collection: writes stamped by two shards' primaries, 2 s apart, in
		// turn
		for (int i = 0; i < 4; i++) {
			sample(25 + 5 * i, (i % 2 == 0) ? 2_000 : 0);
		}
		assertThat(this.jumps).hasSize(4)
			.allSatisfy((jump) -> assertThat(jump.abs()).isGreaterThan(java.time.Duration.ofMillis(1_500)));
		assertThat(output.getOut()).containsOnlyOnce("its stamps come from more than one clock")
			.contains("are the membership collections sharded?");
	}

}
