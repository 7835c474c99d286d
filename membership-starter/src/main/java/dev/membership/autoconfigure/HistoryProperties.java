package dev.membership.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.convert.DurationUnit;

/** {@code membership.history.*}: a group of {@link MembershipProperties}. */
public class HistoryProperties {

	/**
	 * Whether every run of guarded work is recorded in the cluster's run history (the
	 * store's, for example the MongoDB collection membership.mongo.runs-collection), read
	 * at /actuator/cluster/runs.
	 */
	private boolean enabled = true;

	/** How long a run stays in the history (an expiry by age: a TTL index on MongoDB). */
	@DurationUnit(ChronoUnit.DAYS)
	private Duration retention = Duration.ofDays(7);

	/**
	 * How many runs of each job (and partition) the history keeps per node process; older
	 * ones are replaced.
	 */
	private int maxRuns = 100;

	/**
	 * How many runs a node keeps in memory while the store cannot be reached; beyond that
	 * the oldest are dropped and counted (membership.history.dropped).
	 */
	private int buffer = 10_000;

	/**
	 * What the history keeps of an error a run threw (and of an operator's action that
	 * was refused): 'message', the exception's class and the first line of its message
	 * with credentials taken out (user:password@ in URIs, password=, secret=, token=
	 * values), at most 300 characters; 'class', the class only. Whoever may read
	 * /actuator/cluster/runs reads it.
	 */
	private ErrorDetail errorDetail = ErrorDetail.MESSAGE;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Duration getRetention() {
		return this.retention;
	}

	public void setRetention(Duration retention) {
		this.retention = retention;
	}

	public int getMaxRuns() {
		return this.maxRuns;
	}

	public void setMaxRuns(int maxRuns) {
		this.maxRuns = maxRuns;
	}

	public int getBuffer() {
		return this.buffer;
	}

	public void setBuffer(int buffer) {
		this.buffer = buffer;
	}

	public ErrorDetail getErrorDetail() {
		return this.errorDetail;
	}

	public void setErrorDetail(ErrorDetail errorDetail) {
		this.errorDetail = errorDetail;
	}

	/** What the run history keeps of an error. */
	public enum ErrorDetail {

		/**
		 * The exception's class and the first line of its message, credentials taken out.
		 */
		MESSAGE,

		/** The exception's class only. */
		CLASS

	}

}
