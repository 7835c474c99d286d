package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationUnit;

/** {@code membership.shutdown.*}: a group of {@link MembershipProperties}. */
public class ShutdownProperties {

	/**
	 * How long a graceful stop (or a resign) waits for running @LeaderOnly work of a
	 * group to finish, renewing the lease meanwhile, before it hands the group over
	 * anyway and logs which methods still run. Zero hands over at once. Unset: 20 s, or
	 * less where spring.lifecycle.timeout-per-shutdown-phase is shorter, so that the
	 * drain ends 2 s before Spring's phase does. Set, it must itself end 2 s before
	 * Spring's phase does; keep it below the platform's grace period too.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private @Nullable Duration drainTimeout;

	public @Nullable Duration getDrainTimeout() {
		return this.drainTimeout;
	}

	public void setDrainTimeout(@Nullable Duration drainTimeout) {
		this.drainTimeout = drainTimeout;
	}

}
