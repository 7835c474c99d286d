package dev.membership.engine.history;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.membership.operations.Requester;
import dev.membership.spi.RunInfo;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;

/**
 * A run as it waits to be written to the history; its fields guarded by the
 * {@link PendingRuns} that holds it.
 */
final class PendingRun {

	final RunInfo info;

	final Instant startedAt;

	final long sequence;

	@Nullable Instant endedAt;

	@Nullable RunOutcome outcome;

	@Nullable String error;

	/**
	 * Whether a record of its start reached the history (its next record then is not the
	 * first).
	 */
	boolean startWritten;

	/** Whether the buffer dropped it once (counted then, never again). */
	boolean dropped;

	/** Who asked for an operator's action; null for a run. */
	final @Nullable Requester requester;

	PendingRun(RunInfo info, Instant startedAt, long sequence) {
		this(info, startedAt, sequence, null);
	}

	PendingRun(RunInfo info, Instant startedAt, long sequence, @Nullable Requester requester) {
		this.info = info;
		this.startedAt = startedAt;
		this.sequence = sequence;
		this.requester = requester;
	}

	String id() {
		return this.info.id();
	}

	RunRecord record(String process) {
		return new RunRecord(this.info.id(), process, this.sequence, this.info.job(), this.info.group(),
				this.info.partition(), this.info.nodeId(), this.info.epoch(), this.startedAt,
				(this.outcome != null) ? this.endedAt : null, this.outcome, this.error,
				(this.requester != null) ? this.requester.name() : null,
				(this.requester != null) ? this.requester.address() : null, this.info.fireAt(), !this.startWritten);
	}

}
