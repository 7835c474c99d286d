package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One fire of a scheduled job, handed by the leader's engine to the job's
 * {@link ScheduledJob#runner()}: identified cluster-wide by its job and instant. The
 * runner runs it with {@link WorkRegistry#tryBegin(Fire, boolean, java.time.Duration)},
 * which registers it with the term it was fired under, so that a hand-over waits for it
 * and its end is recorded for the next term.
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

}
