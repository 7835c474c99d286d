package dev.membership.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The last fire of a scheduled job that a term of its group began, as the lease carries
 * it from term to term.
 *
 * @param job the job ({@code bean#method})
 * @param at the fire's instant (its schedule's, not when it ran)
 * @param ended whether its run ended (false: it began and its end was not recorded, or it
 * still runs)
 */
public record FireMark(String job, Instant at, boolean ended) {

	public FireMark {
		Objects.requireNonNull(job, "job");
		Objects.requireNonNull(at, "at");
	}

}
