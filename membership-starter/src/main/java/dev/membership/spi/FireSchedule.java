package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * When a scheduled job fires: instants every node computes alike, by the database's clock
 * (a cron expression in its zone, a fixed rate aligned to the epoch of the clock). A fire
 * is identified cluster-wide by its job and instant, at millisecond precision (what the
 * stores keep): a schedule's instants are whole milliseconds.
 */
@FunctionalInterface
public interface FireSchedule {

	/**
	 * The first fire strictly after {@code after}, or null when the schedule has no more.
	 */
	@Nullable Instant next(Instant after);

	/**
	 * What identifies this schedule across processes and deploys: two schedules with the
	 * same identity fire at the same instants. A fire's record carries it, so that a job
	 * whose schedule changed between deploys starts afresh rather than from a fire of its
	 * old schedule. Null (the default): not known, and a record is taken as this
	 * schedule's.
	 */
	default @Nullable String identity() {
		return null;
	}

}
