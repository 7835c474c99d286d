package dev.membership.spi;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeadershipTerm.Execution;

/**
 * One fire of a scheduled job, handed by the leader's engine to the job's
 * {@link ScheduledJob#runner()}: identified cluster-wide by its job and instant. The
 * runner begins its run with {@link #tryBegin(boolean, Duration)}, which registers it
 * with the term it was fired under, so that a hand-over waits for it and its end is
 * recorded for the next term. Made by the engine only.
 */
public interface Fire {

	/** The group: a plain group's, or the partitioned group of {@link #partition()}. */
	String group();

	/**
	 * The partition, for a job of a partitioned group, whose owner fires it for this
	 * partition; else null.
	 */
	default @Nullable Integer partition() {
		return null;
	}

	String job();

	/**
	 * The fire's instant in its schedule (not when it runs: a caught-up fire runs later).
	 */
	Instant instant();

	/** The epoch of the term it was fired under. */
	long epoch();

	/**
	 * Registers this fire's run on this thread under the term it was fired under, as
	 * {@link WorkRegistry#tryBegin(dev.membership.leadership.LeadershipTerm, String, boolean, Duration)}
	 * does, named by its job; the fire's end (the execution's close) is recorded for the
	 * next term. Null when that term is over or ending: then the fire did not begin, and
	 * a later term runs it again unless its policy says otherwise.
	 */
	@Nullable Execution tryBegin(boolean interruptible, Duration maxRunTime);

	/**
	 * As {@link #tryBegin(boolean, Duration)}, for a run on no particular thread (a
	 * reactive pipeline), as
	 * {@link WorkRegistry#tryBeginDetached(dev.membership.leadership.LeadershipTerm, String, Runnable, Duration)}
	 * registers work: the fire's end is the execution's close, from any thread.
	 */
	@Nullable Execution tryBeginDetached(Runnable onEnd, Duration maxRunTime);

}
