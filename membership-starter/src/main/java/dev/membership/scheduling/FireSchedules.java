package dev.membership.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.CronTrigger;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.scheduling.support.SimpleTriggerContext;

import dev.membership.spi.FireSchedule;

/**
 * The schedules of {@code @Scheduled} as instants every node computes alike, so that a
 * fire is one fire cluster-wide: a cron expression's in its zone, as Spring's
 * {@link CronExpression} computes them on one node (a local time that the change to
 * summer time skips has no fire that night; one that the change back repeats fires at
 * both instants), and a fixed rate's at whole periods since the epoch of the clock
 * (1970-01-01T00:00Z), shifted by an offset. A fire is keyed by its instant, so the
 * repeated local time is two fires, not a duplicate, and the skipped one no missed fire.
 */
public final class FireSchedules {

	private FireSchedules() {
	}

	/** The fires of {@code expression} in {@code zone}. */
	public static FireSchedule cron(String expression, ZoneId zone) {
		CronExpression cron = CronExpression.parse(expression);
		Objects.requireNonNull(zone, "zone");
		return new FireSchedule() {

			@Override
			public @Nullable Instant next(Instant after) {
				ZonedDateTime next = cron.next(after.atZone(zone));
				return (next != null) ? next.toInstant() : null;
			}

			@Override
			public String identity() {
				return cronIdentity(cron.toString(), this);
			}

			@Override
			public String toString() {
				return "cron '" + expression + "' in " + zone;
			}

		};
	}

	/**
	 * The fires of a Spring {@link Trigger} that depends on no run (a
	 * {@code CronTrigger}): each computed as Spring's scheduler does after a fire at the
	 * given instant, in the trigger's zone (or the JVM's default, as Spring's).
	 */
	public static FireSchedule trigger(Trigger trigger) {
		Objects.requireNonNull(trigger, "trigger");
		return new FireSchedule() {

			@Override
			public @Nullable Instant next(Instant after) {
				return trigger.nextExecution(new SimpleTriggerContext(after, after, after));
			}

			@Override
			public String identity() {
				return (trigger instanceof CronTrigger cron) ? cronIdentity(cron.getExpression(), this)
						: trigger.toString();
			}

			@Override
			public String toString() {
				return trigger.toString();
			}

		};
	}

	/**
	 * A cron schedule's identity: its expression, and its first fires after a winter's
	 * and a summer's reference instant, which tell its zone where the zone changes its
	 * instants (Spring's {@code CronTrigger} does not say its zone), and only there.
	 */
	private static String cronIdentity(String expression, FireSchedule schedule) {
		return "cron " + expression + " " + schedule.next(WINTER) + " " + schedule.next(SUMMER);
	}

	private static final Instant WINTER = Instant.parse("2001-01-01T00:00:00Z");

	private static final Instant SUMMER = Instant.parse("2001-07-01T00:00:00Z");

	/**
	 * Every {@code period}, at {@code offset} plus a whole number of periods since the
	 * epoch of the clock: the fires of
	 * {@code @Scheduled(fixedRate = period, initialDelay = offset)}, whichever node
	 * computes them.
	 */
	public static FireSchedule fixedRate(Duration period, Duration offset) {
		if (period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("A fixed rate's period is more than nothing, not " + period);
		}
		if (period.toNanos() % 1_000_000 != 0 || offset.toNanos() % 1_000_000 != 0) {
			throw new IllegalArgumentException("A fixed rate's period and offset are whole milliseconds (what the "
					+ "stores keep of a fire's instant), not " + period + " and " + offset);
		}
		long periodNanos = period.toNanos();
		long offsetNanos = Math.floorMod(offset.toNanos(), periodNanos);
		Instant origin = Instant.EPOCH.plusNanos(offsetNanos);
		return new FireSchedule() {

			@Override
			public Instant next(Instant after) {
				// toward zero: at most two steps
				long periods = Duration.between(origin, after).dividedBy(period);
				Instant fire = origin.plus(period.multipliedBy(periods));
				for (int i = 0; i < 3 && !fire.isAfter(after); i++) {
					fire = fire.plus(period);
				}
				return fire;
			}

			@Override
			public String identity() {
				return toString();
			}

			@Override
			public String toString() {
				return "every " + period + ((offsetNanos != 0) ? " from " + Duration.ofNanos(offsetNanos) : "");
			}

		};
	}

}
