package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.FireMode;
import dev.membership.leadership.MissedFires;
import dev.membership.spi.FireMark;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.FireSchedule;

/**
 * What a term does about one scheduled job's fires as it begins: which fires it runs at
 * once (missed ones within the job's catch-up window, and the last fire of a term that
 * crashed before its end), which it records as missed or skipped, and when the job fires
 * next. Pure: the mark the lease carried, the schedule, the policy and the database's
 * time in; decisions out. Bounded: at most {@value #MAX_COUNTED} missed fires are counted
 * one by one.
 */
final class FirePlan {

	static final int MAX_COUNTED = 100_000;

	/**
	 * The most missed fires one catch-up runs with {@link MissedFires#RUN_ALL}: no burst
	 * without end after an outage.
	 */
	static final int MAX_RUN_ALL = 1_000;

	/**
	 * Fires recorded without a run: {@code count} of them, from {@code first} to
	 * {@code last}, and why.
	 */
	record Note(Outcome outcome, Instant first, Instant last, long count, String reason) {
	}

	enum Outcome {

		/** Never run. */
		MISSED,

		/** Not run on its own: an overlap, or coalesced into another fire's run. */
		SKIPPED

	}

	/**
	 * The fires to run now (oldest first), what is recorded without a run, and the next
	 * fire (null: none).
	 */
	record CatchUp(List<Instant> run, List<Note> notes, @Nullable Instant next) {
	}

	private FirePlan() {
	}

	/**
	 * The plan of a term that begins at {@code now} (the database's time) with the job's
	 * last {@code mark} (null: the job has never fired; its first fire is the first after
	 * {@code now}).
	 */
	static CatchUp onTerm(@Nullable FireMark mark, FireSchedule schedule, FirePolicy policy, Instant now) {
		List<Note> notes = new ArrayList<>();
		Instant from;
		if (mark == null || !isOf(mark, schedule)) {
			// never fired, or fired on a schedule it no longer has: afresh
			from = schedule.next(now);
			mark = null;
		}
		else if (mark.owed()) {
			// its term ended before its run began: it never ran, whatever the policy
			from = mark.at();
		}
		else if (mark.ended()) {
			from = schedule.next(mark.at());
		}
		else if (policy.mode() == FireMode.STRICT) {
			notes.add(new Note(Outcome.MISSED, mark.at(), mark.at(), 1,
					"its run began on a node that stopped before " + "it ended: not run again (STRICT: at most once)"));
			from = schedule.next(mark.at());
		}
		else {
			// began, and no end was recorded: at least once, it runs again (within its
			// window)
			from = mark.at();
		}
		boolean unended = mark != null && !mark.ended() && !mark.owed() && policy.mode() != FireMode.STRICT;
		Instant owed = (mark != null && mark.owed()) ? mark.at() : null;
		List<Instant> within = new ArrayList<>();
		Instant beyondFirst = null;
		Instant beyondLast = null;
		long beyond = 0;
		Instant fire = from;
		for (int i = 0; fire != null && !fire.isAfter(now) && i < MAX_COUNTED; i++) {
			Instant after = schedule.next(fire);
			if (Duration.between(fire, now).compareTo(window(fire, after, policy)) <= 0) {
				within.add(fire);
			}
			else {
				beyondFirst = (beyondFirst != null) ? beyondFirst : fire;
				beyondLast = fire;
				beyond++;
			}
			fire = after;
		}
		if (beyond > 0) {
			notes.add(new Note(Outcome.MISSED, beyondFirst, beyondLast, beyond,
					(beyondFirst.equals(owed) ? "its leader stopped before its run began, and no node could run it "
							: (unended && beyondFirst.equals(from))
									? "its run began on a node that stopped before its end was recorded, and "
									: "no node could run it ")
							+ "within its catch-up window (" + describe(policy) + ")"));
		}
		List<Instant> run;
		if (owed != null && !within.isEmpty() && within.get(0).equals(owed) && policy.missed() == MissedFires.SKIP) {
			// owed, not missed: it runs; the fires missed after it are not caught up
			runOf(within.subList(1, within.size()), policy, notes);
			run = List.of(owed);
		}
		else {
			run = runOf(within, policy, notes);
		}
		Instant next = (fire != null && fire.isAfter(now)) ? fire : schedule.next(now);
		return new CatchUp(run, notes, next);
	}

	/**
	 * Whether {@code mark} is a fire of {@code schedule}: the same identity, or either
	 * not known.
	 */
	static boolean isOf(FireMark mark, FireSchedule schedule) {
		String identity = schedule.identity();
		return mark.schedule() == null || identity == null || mark.schedule().equals(identity);
	}

	/** Of the missed fires within their window, those run now; the others are noted. */
	private static List<Instant> runOf(List<Instant> within, FirePolicy policy, List<Note> notes) {
		if (within.isEmpty()) {
			return List.of();
		}
		Instant first = within.get(0);
		Instant last = within.get(within.size() - 1);
		if (policy.missed() == MissedFires.SKIP) {
			notes.add(new Note(Outcome.MISSED, first, last, within.size(), "missed fires are not caught up (SKIP)"));
			return List.of();
		}
		if (within.size() == 1) {
			return List.copyOf(within);
		}
		if (policy.missed() == MissedFires.RUN_ALL) {
			if (within.size() <= MAX_RUN_ALL) {
				return List.copyOf(within);
			}
			int dropped = within.size() - MAX_RUN_ALL;
			notes.add(new Note(Outcome.MISSED, first, within.get(dropped - 1), dropped,
					"a catch-up runs at most the " + MAX_RUN_ALL + " newest missed fires (RUN_ALL)"));
			return List.copyOf(within.subList(dropped, within.size()));
		}
		notes.add(new Note(Outcome.SKIPPED, first, within.get(within.size() - 2), within.size() - 1,
				"coalesced into the run of the fire of " + last));
		return List.of(last);
	}

	/**
	 * How late the fire at {@code fire} may still run; {@code after} is the fire that
	 * follows it (null: none).
	 */
	static Duration window(Instant fire, @Nullable Instant after, FirePolicy policy) {
		if (policy.catchUp() != null) {
			return policy.catchUp();
		}
		Duration period = (after != null) ? Duration.between(fire, after) : FirePolicy.MAX_DEFAULT_CATCH_UP;
		return (period.compareTo(FirePolicy.MAX_DEFAULT_CATCH_UP) < 0) ? period : FirePolicy.MAX_DEFAULT_CATCH_UP;
	}

	private static String describe(FirePolicy policy) {
		return (policy.catchUp() != null) ? policy.catchUp().toString()
				: "one period, at most " + FirePolicy.MAX_DEFAULT_CATCH_UP.toMinutes() + " minutes";
	}

}
