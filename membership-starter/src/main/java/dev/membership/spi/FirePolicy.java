package dev.membership.spi;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.FireMode;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;

/**
 * How a scheduled job's fires are kept once each, cluster-wide.
 *
 * @param catchUp how late a missed fire may still run; null: one period of the schedule
 * (the time to the fire after it), at most {@link #MAX_DEFAULT_CATCH_UP}
 * @param missed what a new leader does with several missed fires within the window
 * @param overlap what a fire does while the job's previous run still runs
 * @param mode how fires are recorded: in the writes the leader makes anyway, or one write
 * before each run
 */
public record FirePolicy(@Nullable Duration catchUp, MissedFires missed, OverlappingFires overlap, FireMode mode) {

	/**
	 * The longest default catch-up window: a nightly job missed by more than an hour
	 * waits for its next night rather than run in the middle of the next day's traffic,
	 * unless it asks for a longer window.
	 */
	public static final Duration MAX_DEFAULT_CATCH_UP = Duration.ofHours(1);

	/**
	 * The defaults: one period's catch-up (at most an hour), missed fires coalesced, an
	 * overlapping fire skipped.
	 */
	public static final FirePolicy DEFAULTS = new FirePolicy(null, MissedFires.COALESCE, OverlappingFires.SKIP,
			FireMode.RECORDED);

	public FirePolicy {
		Objects.requireNonNull(missed, "missed");
		Objects.requireNonNull(overlap, "overlap");
		Objects.requireNonNull(mode, "mode");
		if (catchUp != null && catchUp.isNegative()) {
			throw new IllegalArgumentException("A catch-up window is zero (no catch-up) or more, not " + catchUp);
		}
	}

}
