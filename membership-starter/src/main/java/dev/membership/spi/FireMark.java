package dev.membership.spi;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The last fire of a scheduled job that a term of its group took, as the lease carries it
 * from term to term.
 *
 * @param job the job ({@code bean#method})
 * @param at the fire's instant (its schedule's, not when it ran)
 * @param ended whether its run ended (false: it began and its end was not recorded, it
 * still runs, or it is owed)
 * @param owed whether the term that took it ended before its run began (a graceful stop,
 * a resign, a hand-over at the fire's instant, or a scheduler that refused it): it never
 * ran, and the next term runs it, whatever the job's policy; never with {@code ended}
 * @param schedule the {@link FireSchedule#identity() identity} of the schedule the fire
 * belongs to (null: not known, as in marks written before it was kept): a term whose job
 * has another schedule starts it afresh, from its next fire
 */
public record FireMark(String job, Instant at, boolean ended, boolean owed, @Nullable String schedule) {

	public FireMark {
		Objects.requireNonNull(job, "job");
		Objects.requireNonNull(at, "at");
		if (ended && owed) {
			throw new IllegalArgumentException("A fire that ended is not owed: " + job + " at " + at);
		}
	}

	/** A fire begun ({@code ended} false) or ended, of a schedule not known. */
	public FireMark(String job, Instant at, boolean ended) {
		this(job, at, ended, false, null);
	}

	/** This mark, its fire ended. */
	public FireMark asEnded() {
		return new FireMark(this.job, this.at, true, false, this.schedule);
	}

	/** This mark, its fire owed to the next term (it never began). */
	public FireMark asOwed() {
		return new FireMark(this.job, this.at, false, true, this.schedule);
	}

}
