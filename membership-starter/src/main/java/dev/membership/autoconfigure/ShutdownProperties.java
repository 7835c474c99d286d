package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.convert.DurationUnit;

/** {@code membership.shutdown.*}: a group of {@link MembershipProperties}. */
public class ShutdownProperties {

	/**
	 * How long a graceful stop (or a resign) waits for running @LeaderOnly work of a
	 * group to finish, renewing the lease meanwhile, before it hands the group over
	 * anyway and logs which methods still run. Zero hands over at once. Keep it below
	 * spring.lifecycle.timeout-per-shutdown-phase and the platform's grace period.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration drainTimeout = Duration.ofSeconds(20);

	public Duration getDrainTimeout() {
		return this.drainTimeout;
	}

	public void setDrainTimeout(Duration drainTimeout) {
		this.drainTimeout = drainTimeout;
	}

}
