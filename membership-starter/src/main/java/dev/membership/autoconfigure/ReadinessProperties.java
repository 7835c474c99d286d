package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.convert.DurationUnit;

/** {@code membership.readiness.*}: a group of {@link MembershipProperties}. */
public class ReadinessProperties {

	/**
	 * Whether the application's readiness waits (REFUSING_TRAFFIC, OUT_OF_SERVICE on the
	 * probe) until this node has made its first read of the cluster.
	 */
	private boolean enabled = true;

	/**
	 * How long readiness waits for membership at most; then the node reports ready anyway
	 * and logs why at WARN.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration timeout = Duration.ofSeconds(30);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

}
