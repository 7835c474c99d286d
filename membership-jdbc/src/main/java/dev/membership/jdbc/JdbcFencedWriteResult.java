package dev.membership.jdbc;

import java.util.OptionalLong;

/**
 * What a fenced write did.
 *
 * @param rows rows written under this epoch
 * @param inserted whether an upsert inserted the row
 * @param supersededBy the newest epoch that wrote the rows the write targeted, when newer than the writer's own: the
 * write changed nothing
 */
public record JdbcFencedWriteResult(long rows, boolean inserted, OptionalLong supersededBy) {

	/** Whether a newer term of the group wrote the rows first, so this write changed nothing. */
	public boolean isFencedOut() {
		return this.supersededBy.isPresent();
	}

	/** Whether the write changed or inserted anything under this epoch. */
	public boolean applied() {
		return this.rows > 0;
	}

	/** This result, or {@link IllegalStateException} saying which epoch got there first. */
	public JdbcFencedWriteResult orThrow() {
		if (isFencedOut()) {
			throw new IllegalStateException("Fenced out: a newer term (epoch " + this.supersededBy.getAsLong()
					+ ") has written these rows; this term's write changed nothing");
		}
		return this;
	}

}
