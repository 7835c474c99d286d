package dev.membership.leadership;

import java.util.OptionalLong;

/**
 * A fenced write, or a fenced transaction, found that a newer term of its group (or
 * partition) has begun: this node's term is over, whatever it still believes. Stop the
 * work and let the transaction roll back; the newer term owns the data now. Both stores'
 * fences throw it: MongoDB's {@code EpochFence} and PostgreSQL's {@code JdbcEpochFence}.
 */
public class FencedOutException extends RuntimeException {

	private final String group;

	private final long epoch;

	private final OptionalLong newerEpoch;

	public FencedOutException(String group, long epoch, OptionalLong newerEpoch, String message) {
		super(message);
		this.group = group;
		this.epoch = epoch;
		this.newerEpoch = newerEpoch;
	}

	/** The group (a partition's term: its group) whose term was fenced out. */
	public String group() {
		return this.group;
	}

	/** The epoch the fenced-out write or transaction carried. */
	public long epoch() {
		return this.epoch;
	}

	/** The newer epoch that got there first, when the fence saw it. */
	public OptionalLong newerEpoch() {
		return this.newerEpoch;
	}

}
