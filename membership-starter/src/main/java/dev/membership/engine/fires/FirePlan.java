package dev.membership.engine.fires;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.FireMode;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;
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

	static final int MAX_COUNTED = 10_000;

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
		FireSpan within = new FireSpan(MAX_RUN_ALL + 1);
		FireSpan beyond = new FireSpan(0);
		// a fire older than the widest window any fire of the job has is beyond its own:
		// counted one by one up to a bound, then skipped over to that window's start
		Duration widest = (policy.catchUp() != null) ? policy.catchUp() : FirePolicy.MAX_DEFAULT_CATCH_UP;
		Instant surelyBeyond = now.minus(widest);
		Instant fire = from;
		while (fire != null && fire.isBefore(surelyBeyond)) {
			if (beyond.count() == MAX_COUNTED) {
				Instant resume = schedule.next(surelyBeyond.minusNanos(1));
				notes.add(uncounted(schedule, fire, resume,
						"no node could run them within their catch-up window (" + describe(policy) + ")"));
				fire = resume;
				break;
			}
			beyond.add(fire);
			fire = schedule.next(fire);
		}
		long budget = MAX_COUNTED;
		while (fire != null && !fire.isAfter(now)) {
			if (budget-- == 0) {
				// more fires in the window than one plan counts: the older half is
				// recorded (its count estimated), the newer planned, until it fits
				Instant resume = schedule.next(fire.plus(Duration.between(fire, now).dividedBy(2)));
				String why = "more missed fires than one catch-up plans one by one (" + MAX_COUNTED + ")";
				if (!within.isEmpty()) {
					notes.add(new Note(Outcome.MISSED, within.first(), within.last(), within.count(), why));
				}
				notes.add(uncounted(schedule, fire, resume, why));
				within = new FireSpan(MAX_RUN_ALL + 1);
				budget = MAX_COUNTED;
				fire = resume;
				continue;
			}
			Instant after = schedule.next(fire);
			if (Duration.between(fire, now).compareTo(window(fire, after, policy)) <= 0) {
				within.add(fire);
			}
			else {
				beyond.add(fire);
			}
			fire = after;
		}
		if (!beyond.isEmpty()) {
			notes.add(new Note(Outcome.MISSED, beyond.first(), beyond.last(), beyond.count(),
					(beyond.first().equals(owed) ? "its leader stopped before its run began, and no node could run it "
							: (unended && beyond.first().equals(from))
									? "its run began on a node that stopped before its end was recorded, and "
									: "no node could run it ")
							+ "within its catch-up window (" + describe(policy) + ")"));
		}
		List<Instant> run;
		if (owed != null && !within.isEmpty() && within.first().equals(owed) && policy.missed() == MissedFires.SKIP) {
			// owed, not missed: it runs; the fires missed after it are not caught up
			if (within.count() > 1) {
				notes.add(new Note(Outcome.MISSED, schedule.next(owed), within.last(), within.count() - 1,
						"missed fires are not caught up (SKIP)"));
			}
			run = List.of(owed);
		}
		else {
			run = runOf(within, policy, notes);
		}
		Instant next = (fire != null && fire.isAfter(now)) ? fire : schedule.next(now);
		return new CatchUp(run, notes, next);
	}

	/**
	 * The fires from {@code from} to before {@code until}, skipped over rather than
	 * counted: recorded missed, their count estimated from the schedule's period there
	 * (the mean of its next few).
	 */
	private static Note uncounted(FireSchedule schedule, Instant from, @Nullable Instant until, String why) {
		Instant end = (until != null) ? until : from;
		Instant probe = from;
		int steps = 0;
		for (; steps < 16 && probe != null && probe.isBefore(end); steps++) {
			probe = schedule.next(probe);
		}
		long about = 1;
		if (steps > 0 && probe != null && probe.isAfter(from)) {
			Duration period = Duration.between(from, probe).dividedBy(steps);
			about = period.isZero() ? 1 : Math.max(1, Duration.between(from, end).dividedBy(period));
		}
		return new Note(Outcome.MISSED, from, end, about,
				"about " + about + " fires before " + end + ", not counted one by one: " + why);
	}

	/**
	 * Whether {@code mark} is a fire of {@code schedule}: the same identity, or either
	 * not known.
	 */
	static boolean isOf(FireMark mark, FireSchedule schedule) {
		String identity = schedule.identity();
		return mark.schedule() == null || identity == null || mark.schedule().equals(identity);
	}

	/** What becomes of a fire as it comes. */
	enum Arrival {

		/** It runs now: nothing of the job runs or waits. */
		RUN,

		/**
		 * It waits its turn: one more of a RUN_ALL catch-up, in order (not an overlap).
		 */
		QUEUE,

		/** It waits, the one that BUFFER_ONE keeps, to run once the run ends. */
		BUFFER,

		/** It overlaps a run that goes on: skipped, and recorded so. */
		SKIP

	}

	/**
	 * What becomes of a fire as it comes ({@code idle}: no run of the job goes on and
	 * none waits; {@code catchingUp}: a term's catch-up still runs; {@code buffered}: a
	 * fire already waits as BUFFER_ONE's one). With {@link #onTerm}, the one place where
	 * a job's policy decides which of its fires run.
	 */
	static Arrival onArrival(boolean idle, boolean catchingUp, boolean buffered, FirePolicy policy) {
		if (idle) {
			return Arrival.RUN;
		}
		if (catchingUp && policy.missed() == MissedFires.RUN_ALL) {
			return Arrival.QUEUE;
		}
		if (policy.overlap() == OverlappingFires.BUFFER_ONE && !buffered) {
			return Arrival.BUFFER;
		}
		return Arrival.SKIP;
	}

	/** Of the missed fires within their window, those run now; the others are noted. */
	private static List<Instant> runOf(FireSpan within, FirePolicy policy, List<Note> notes) {
		if (within.isEmpty()) {
			return List.of();
		}
		Instant first = within.first();
		Instant last = within.last();
		if (policy.missed() == MissedFires.SKIP) {
			notes.add(new Note(Outcome.MISSED, first, last, within.count(), "missed fires are not caught up (SKIP)"));
			return List.of();
		}
		if (within.count() == 1) {
			return List.of(last);
		}
		if (policy.missed() == MissedFires.RUN_ALL) {
			if (within.count() <= MAX_RUN_ALL) {
				return within.newest(MAX_RUN_ALL);
			}
			long dropped = within.count() - MAX_RUN_ALL;
			notes.add(new Note(Outcome.MISSED, first, within.newest(MAX_RUN_ALL + 1).get(0), dropped,
					"a catch-up runs at most the " + MAX_RUN_ALL + " newest missed fires (RUN_ALL)"));
			return within.newest(MAX_RUN_ALL);
		}
		notes.add(new Note(Outcome.SKIPPED, first, within.newest(2).get(0), within.count() - 1,
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
