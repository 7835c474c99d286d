package dev.membership.engine.fires;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import dev.membership.engine.fires.FirePlan.CatchUp;
import dev.membership.engine.fires.FirePlan.Outcome;
import dev.membership.leadership.FireMode;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;
import dev.membership.spi.FireMark;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.FireSchedule;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a new term does about a job's fires: catch up within the window, record the rest,
 * never run one twice.
 */
class FirePlanTests {

	private static final Instant T = Instant.parse("2026-11-26T02:00:00Z");

	/** Every 10 s, aligned to the epoch of the clock. */
	private static final FireSchedule EVERY_10_S = (after) -> Instant
		.ofEpochSecond(Math.floorDiv(after.getEpochSecond(), 10) * 10 + 10);

	private static FirePolicy policy(Duration catchUp, MissedFires missed, FireMode mode) {
		return new FirePolicy(catchUp, missed, OverlappingFires.SKIP, mode);
	}

	@Test
	void aJobThatNeverFiredStartsAtItsNextFire() {
		CatchUp plan = FirePlan.onTerm(null, EVERY_10_S, FirePolicy.DEFAULTS, T.plusSeconds(3));
		assertThat(plan.run()).isEmpty();
		assertThat(plan.notes()).isEmpty();
		assertThat(plan.next()).isEqualTo(T.plusSeconds(10));
	}

	@Test
	void aFireThatPassedInAFailoverRunsOnceWithinItsPeriod() {
		// the 02:00:00 fire ended; the leader died before 02:00:10, and the next leads at
		// 02:00:11.5
		CatchUp plan = FirePlan.onTerm(new FireMark("j", T, true), EVERY_10_S, FirePolicy.DEFAULTS,
				T.plusMillis(11_500));
		assertThat(plan.run()).containsExactly(T.plusSeconds(10));
		assertThat(plan.notes()).isEmpty();
		assertThat(plan.next()).isEqualTo(T.plusSeconds(20));
	}

	@Test
	void aFireThatEndedIsNeverRunAgain() {
		CatchUp plan = FirePlan.onTerm(new FireMark("j", T, true), EVERY_10_S, FirePolicy.DEFAULTS, T.plusSeconds(4));
		assertThat(plan.run()).isEmpty();
		assertThat(plan.next()).isEqualTo(T.plusSeconds(10));
	}

	@Test
	void aFireWhoseEndWasNotRecordedRunsAgainByDefaultAndIsRecordedMissedWithStrict() {
		FireMark crashed = new FireMark("j", T, false);
		assertThat(FirePlan.onTerm(crashed, EVERY_10_S, FirePolicy.DEFAULTS, T.plusSeconds(6)).run())
			.as("at least once")
			.containsExactly(T);
		CatchUp strict = FirePlan.onTerm(crashed, EVERY_10_S, policy(null, MissedFires.COALESCE, FireMode.STRICT),
				T.plusSeconds(6));
		assertThat(strict.run()).as("at most once").isEmpty();
		assertThat(strict.notes()).singleElement().satisfies((note) -> {
			assertThat(note.outcome()).isEqualTo(Outcome.MISSED);
			assertThat(note.first()).isEqualTo(T);
			assertThat(note.reason()).contains("STRICT");
		});
	}

	@Test
	void missedFiresBeyondTheWindowAreRecordedAndTheLatestWithinRuns() {
		// the whole cluster was down from 02:00:05 to 02:00:47: 02:00:10 to 02:00:40
		// passed
		CatchUp plan = FirePlan.onTerm(new FireMark("j", T, true), EVERY_10_S, FirePolicy.DEFAULTS, T.plusSeconds(47));
		assertThat(plan.run()).containsExactly(T.plusSeconds(40));
		assertThat(plan.notes()).singleElement().satisfies((note) -> {
			assertThat(note.outcome()).isEqualTo(Outcome.MISSED);
			assertThat(note.first()).isEqualTo(T.plusSeconds(10));
			assertThat(note.last()).isEqualTo(T.plusSeconds(30));
			assertThat(note.count()).isEqualTo(3);
			assertThat(note.reason()).contains("catch-up window (one period, at most 60 minutes)");
		});
		assertThat(plan.next()).isEqualTo(T.plusSeconds(50));
	}

	@Test
	void withinALongerWindowSeveralMissedFiresCoalesceRunEachOrNone() {
		FireMark mark = new FireMark("j", T, true);
		Instant now = T.plusSeconds(35);
		CatchUp coalesced = FirePlan.onTerm(mark, EVERY_10_S,
				policy(Duration.ofMinutes(1), MissedFires.COALESCE, FireMode.RECORDED), now);
		assertThat(coalesced.run()).containsExactly(T.plusSeconds(30));
		assertThat(coalesced.notes()).singleElement().satisfies((note) -> {
			assertThat(note.outcome()).isEqualTo(Outcome.SKIPPED);
			assertThat(note.count()).isEqualTo(2);
			assertThat(note.reason()).contains("coalesced into the run of the fire of " + T.plusSeconds(30));
		});
		assertThat(FirePlan
			.onTerm(mark, EVERY_10_S, policy(Duration.ofMinutes(1), MissedFires.RUN_ALL, FireMode.RECORDED), now)
			.run()).containsExactly(T.plusSeconds(10), T.plusSeconds(20), T.plusSeconds(30));
		CatchUp skipped = FirePlan.onTerm(mark, EVERY_10_S,
				policy(Duration.ofMinutes(1), MissedFires.SKIP, FireMode.RECORDED), now);
		assertThat(skipped.run()).isEmpty();
		assertThat(skipped.notes()).singleElement().satisfies((note) -> assertThat(note.count()).isEqualTo(3));
	}

	@Test
	void theDefaultWindowOfANightlyJobIsAnHourAndRunAllIsBounded() {
		// 02:00 every night (UTC)
		FireSchedule nightly = (after) -> after.minus(Duration.ofHours(2))
			.truncatedTo(java.time.temporal.ChronoUnit.DAYS)
			.plus(Duration.ofDays(1).plusHours(2));
		FireMark mark = new FireMark("j", T.minus(Duration.ofDays(1)), true);
		assertThat(FirePlan.onTerm(mark, nightly, FirePolicy.DEFAULTS, T.plus(Duration.ofMinutes(59))).run())
			.as("59 minutes late")
			.hasSize(1);
		CatchUp late = FirePlan.onTerm(mark, nightly, FirePolicy.DEFAULTS, T.plus(Duration.ofMinutes(61)));
		assertThat(late.run()).as("61 minutes late").isEmpty();
		assertThat(late.notes()).singleElement().satisfies((n) -> assertThat(n.outcome()).isEqualTo(Outcome.MISSED));
		CatchUp burst = FirePlan.onTerm(new FireMark("j", T, true), EVERY_10_S,
				policy(Duration.ofDays(1), MissedFires.RUN_ALL, FireMode.RECORDED), T.plus(Duration.ofHours(5)));
		assertThat(burst.run()).hasSize(FirePlan.MAX_RUN_ALL).last().isEqualTo(T.plus(Duration.ofHours(5)));
		assertThat(burst.notes()).singleElement().satisfies((n) -> assertThat(n.count()).isEqualTo(1800 - 1000));
	}

	/**
	 * A fire owed by a term that ended before its run began runs on the next, under every
	 * policy, with nothing said missed: it is no missed fire. Before, STRICT recorded it
	 * "missed: its run began on a node that stopped" and SKIP "not caught up (SKIP)".
	 */
	@Test
	void anOwedFireRunsUnderEveryPolicy() {
		FireMark owed = new FireMark("j", T, false, true, null);
		for (MissedFires missed : MissedFires.values()) {
			for (FireMode mode : FireMode.values()) {
				CatchUp plan = FirePlan.onTerm(owed, EVERY_10_S, policy(null, missed, mode), T.plusMillis(1_500));
				assertThat(plan.run()).as(missed + ", " + mode).containsExactly(T);
				assertThat(plan.notes()).as(missed + ", " + mode).isEmpty();
				assertThat(plan.next()).isEqualTo(T.plusSeconds(10));
			}
		}
		// with SKIP, the fires missed after it are not caught up
		CatchUp later = FirePlan.onTerm(owed, EVERY_10_S,
				policy(Duration.ofMinutes(1), MissedFires.SKIP, FireMode.RECORDED), T.plusSeconds(25));
		assertThat(later.run()).containsExactly(T);
		assertThat(later.notes()).singleElement().satisfies((note) -> {
			assertThat(note.outcome()).isEqualTo(Outcome.MISSED);
			assertThat(note.count()).isEqualTo(2);
		});
	}

	/**
	 * A job whose schedule changed between deploys starts afresh from its next fire:
	 * nothing of the old schedule runs or is said missed. Before, a cron changed from
	 * every minute to every 10 s ran (RUN_ALL) or recorded missed the fires of the new
	 * one since the old one's last.
	 */
	@Test
	void aJobWhoseScheduleChangedStartsAfresh() {
		FireSchedule every10s = new FireSchedule() {

			@Override
			public Instant next(Instant after) {
				return EVERY_10_S.next(after);
			}

			@Override
			public String identity() {
				return "every PT10S";
			}

		};
		FireMark minutely = new FireMark("j", T, true, false, "cron 0 * * * * *");
		CatchUp plan = FirePlan.onTerm(minutely, every10s,
				policy(Duration.ofMinutes(2), MissedFires.RUN_ALL, FireMode.RECORDED), T.plusSeconds(33));
		assertThat(plan.run()).isEmpty();
		assertThat(plan.notes()).isEmpty();
		assertThat(plan.next()).isEqualTo(T.plusSeconds(40));
		// the same schedule, or a mark of no known schedule: caught up as before
		assertThat(FirePlan
			.onTerm(new FireMark("j", T, true, false, "every PT10S"), every10s,
					policy(Duration.ofMinutes(2), MissedFires.RUN_ALL, FireMode.RECORDED), T.plusSeconds(33))
			.run()).containsExactly(T.plusSeconds(10), T.plusSeconds(20), T.plusSeconds(30));
		assertThat(FirePlan
			.onTerm(new FireMark("j", T, true), every10s,
					policy(Duration.ofMinutes(2), MissedFires.RUN_ALL, FireMode.RECORDED), T.plusSeconds(33))
			.run()).hasSize(3);
	}

	/**
	 * However long the outage, the plan is bounded in work and loses nothing: the fire at
	 * the window's end runs, and every fire before it is in a note (counted, or estimated
	 * where too many to count). Before, past 100,000 missed fires the newest were neither
	 * run nor recorded: a 100 ms rate down 3 h ran nothing and left 8,000 fires in no
	 * note; RUN_ALL after 30 h down ran fires 2.5 h old.
	 */
	@Test
	void aLongOutageIsPlannedInBoundedWorkAndLosesNoFire() {
		java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();
		FireSchedule every100ms = (after) -> {
			calls.incrementAndGet();
			return Instant.ofEpochMilli(Math.floorDiv(after.toEpochMilli(), 100) * 100 + 100);
		};
		Instant now = T.plus(Duration.ofHours(3)).plusMillis(50);
		CatchUp plan = FirePlan.onTerm(new FireMark("j", T, true), every100ms, FirePolicy.DEFAULTS, now);
		assertThat(plan.run()).containsExactly(T.plus(Duration.ofHours(3)));
		long noted = plan.notes().stream().mapToLong(FirePlan.Note::count).sum();
		assertThat(noted).as("every fire before it, about").isBetween(108_000L - 1_100, 108_000L + 1_100);
		assertThat(plan.notes()).allSatisfy((note) -> assertThat(note.outcome()).isEqualTo(Outcome.MISSED));
		assertThat(calls.get()).as("bounded work").isLessThan(4L * FirePlan.MAX_COUNTED);
		// RUN_ALL, a 6 h window, 30 h down: the newest 1,000, up to now
		FireSchedule everySecond = (after) -> Instant.ofEpochSecond(after.getEpochSecond() + 1);
		Instant later = T.plus(Duration.ofHours(30));
		CatchUp burst = FirePlan.onTerm(new FireMark("j", T, true), everySecond,
				policy(Duration.ofHours(6), MissedFires.RUN_ALL, FireMode.RECORDED), later);
		assertThat(burst.run()).hasSize(FirePlan.MAX_RUN_ALL).last().isEqualTo(later);
		assertThat(burst.notes().stream().mapToLong(FirePlan.Note::count).sum()).isBetween(30L * 3600 - 1_000 - 400,
				30L * 3600 - 1_000 + 400);
	}

	@Test
	void aFireThatComesWhileTheJobIsBusyRunsWaitsOrIsSkippedByItsPolicy() {
		FirePolicy skip = FirePolicy.DEFAULTS;
		FirePolicy buffer = new FirePolicy(null, MissedFires.COALESCE, OverlappingFires.BUFFER_ONE, FireMode.RECORDED);
		FirePolicy runAll = new FirePolicy(null, MissedFires.RUN_ALL, OverlappingFires.SKIP, FireMode.RECORDED);
		assertThat(FirePlan.onArrival(true, true, true, skip)).isEqualTo(FirePlan.Arrival.RUN);
		assertThat(FirePlan.onArrival(false, false, false, skip)).isEqualTo(FirePlan.Arrival.SKIP);
		assertThat(FirePlan.onArrival(false, false, false, buffer)).isEqualTo(FirePlan.Arrival.BUFFER);
		assertThat(FirePlan.onArrival(false, false, true, buffer)).as("one waits already")
			.isEqualTo(FirePlan.Arrival.SKIP);
		assertThat(FirePlan.onArrival(false, true, false, runAll)).as("one more of the catch-up")
			.isEqualTo(FirePlan.Arrival.QUEUE);
		assertThat(FirePlan.onArrival(false, false, false, runAll)).as("after the catch-up: an overlap")
			.isEqualTo(FirePlan.Arrival.SKIP);
		assertThat(FirePlan.onArrival(false, true, false, skip)).as("a catch-up of another policy")
			.isEqualTo(FirePlan.Arrival.SKIP);
	}

}
