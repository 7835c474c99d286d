package dev.membership.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.spi.FireSchedule;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fire instants every node computes alike: a cron expression's in its zone through both
 * daylight-saving changes (by a fixed instant, never a node's clock), and a fixed rate's
 * aligned to the epoch of the clock.
 */
class FireSchedulesTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	private static List<Instant> fires(FireSchedule schedule, Instant from, int count) {
		List<Instant> fires = new ArrayList<>();
		Instant at = from;
		for (int i = 0; i < count; i++) {
			at = schedule.next(at);
			fires.add(at);
		}
		return fires;
	}

	@Test
	void springForwardAtALocalTimeThatDoesNotExist() {
		// 2026-03-29: 02:00 CET becomes 03:00 CEST; 02:30 does not exist that night
		List<Instant> fires = fires(FireSchedules.cron("0 30 2 * * *", BERLIN), Instant.parse("2026-03-27T12:00:00Z"),
				4);
		// as Spring's scheduler on one node: no fire that night, and none of it missed
		assertThat(fires).containsExactly(Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z"),
				Instant.parse("2026-03-31T00:30:00Z"), Instant.parse("2026-04-01T00:30:00Z"));
	}

	@Test
	void fallBackAtALocalTimeThatOccursTwice() {
		// 2026-10-25: 03:00 CEST becomes 02:00 CET; 02:30 happens twice that night
		List<Instant> fires = fires(FireSchedules.cron("0 30 2 * * *", BERLIN), Instant.parse("2026-10-23T12:00:00Z"),
				4);
		// as Spring's scheduler on one node: both 02:30s fire, two instants, neither a
		// duplicate of the other
		assertThat(fires).containsExactly(Instant.parse("2026-10-24T00:30:00Z"), Instant.parse("2026-10-25T00:30:00Z"),
				Instant.parse("2026-10-25T01:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
	}

	@Test
	void aFixedRateIsAlignedToTheEpochOfTheClockWithItsOffset() {
		FireSchedule every10s = FireSchedules.fixedRate(Duration.ofSeconds(10), Duration.ZERO);
		assertThat(every10s.next(Instant.parse("2026-11-26T02:00:03.5Z")))
			.isEqualTo(Instant.parse("2026-11-26T02:00:10Z"));
		assertThat(every10s.next(Instant.parse("2026-11-26T02:00:10Z")))
			.isEqualTo(Instant.parse("2026-11-26T02:00:20Z"));
		FireSchedule offset = FireSchedules.fixedRate(Duration.ofSeconds(10), Duration.ofSeconds(13));
		assertThat(offset.next(Instant.parse("2026-11-26T02:00:03Z"))).as("13 s is 3 s past a whole period")
			.isEqualTo(Instant.parse("2026-11-26T02:00:13Z"));
		assertThat(offset.next(Instant.parse("2026-11-26T02:00:02.999Z")))
			.isEqualTo(Instant.parse("2026-11-26T02:00:03Z"));
		FireSchedule millis = FireSchedules.fixedRate(Duration.ofMillis(1), Duration.ZERO);
		assertThat(millis.next(Instant.parse("2026-11-26T02:00:00.0005Z")))
			.isEqualTo(Instant.parse("2026-11-26T02:00:00.001Z"));
	}

}
