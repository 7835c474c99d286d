package dev.membership.jdbc;

import java.util.OptionalLong;

import dev.membership.leadership.FencedOutException;
import dev.membership.leadership.FencedWrite;

/**
 * What a fenced write did: it protects the rows written through it, each against a write
 * of an older term, and says how many of the rows its key selected it wrote. A write that
 * wrote some of them and not the others (a newer term wrote those) is partial: never a
 * success.
 *
 * @param rows rows written under this epoch
 * @param matched rows the write's key selected (as the statement began): {@code rows}
 * when the write is whole
 * @param inserted whether an upsert inserted the row
 * @param supersededBy the newest epoch that wrote the rows the write targeted, when newer
 * than the writer's own: the write changed nothing, or only some of them
 */
public record JdbcFencedWriteResult(long rows, long matched, boolean inserted,
		OptionalLong supersededBy) implements FencedWrite {

	/** A write whose rows are all the rows it selected. */
	public JdbcFencedWriteResult(long rows, boolean inserted, OptionalLong supersededBy) {
		this(rows, rows, inserted, supersededBy);
	}

	/**
	 * Whether a newer term of the group wrote the rows first, so this write changed
	 * nothing.
	 */
	@Override
	public boolean isFencedOut() {
		return this.rows == 0 && this.supersededBy.isPresent();
	}

	/**
	 * Whether the write wrote some of the rows its key selected and not the others, which
	 * a newer term wrote.
	 */
	@Override
	public boolean isPartial() {
		return this.rows > 0 && this.rows < this.matched;
	}

	/**
	 * Whether the write changed or inserted every row it selected under this epoch, and
	 * at least one.
	 */
	@Override
	public boolean applied() {
		return this.rows > 0 && !isPartial();
	}

	/**
	 * This result, or {@link FencedOutException} saying which epoch got there first,
	 * whole or in part (the same exception as MongoDB's fence throws).
	 */
	public JdbcFencedWriteResult orThrow(JdbcEpochFence fence) {
		if (isFencedOut()) {
			throw new FencedOutException(fence.group(), fence.epoch(), this.supersededBy,
					"Fenced out: a newer term " + "of group '" + fence.group() + "' (epoch "
							+ this.supersededBy.getAsLong() + ") has written " + "these rows; the write of epoch "
							+ fence.epoch() + " changed nothing");
		}
		if (isPartial()) {
			throw new FencedOutException(fence.group(), fence.epoch(), this.supersededBy,
					"Partly fenced out: the " + "write of epoch " + fence.epoch() + " of group '" + fence.group()
							+ "' changed " + this.rows + " of the " + this.matched + " rows it selected; a newer term"
							+ (this.supersededBy.isPresent() ? " (epoch " + this.supersededBy.getAsLong() + ")" : "")
							+ " wrote the others. Write row by row, or in a transaction that rolls back on this");
		}
		return this;
	}

}
