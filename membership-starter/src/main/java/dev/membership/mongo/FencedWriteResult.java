package dev.membership.mongo;

import java.util.OptionalLong;

import dev.membership.leadership.FencedOutException;

/**
 * What a fenced write did.
 *
 * @param matchedCount documents the fenced filter matched (so written under this epoch)
 * @param modifiedCount documents actually changed
 * @param upserted whether an upsert inserted a new document
 * @param supersededBy the newest epoch that has written a document the write targeted, when newer than the writer's
 * own: the write skipped that document
 */
public record FencedWriteResult(long matchedCount, long modifiedCount, boolean upserted, OptionalLong supersededBy) {

	/** Whether a newer epoch of the group has written (some of) the targeted documents, which this write left alone. */
	public boolean isFencedOut() {
		return this.supersededBy.isPresent();
	}

	/** Whether the write matched or inserted anything under this epoch. */
	public boolean applied() {
		return this.matchedCount > 0 || this.upserted;
	}

	/** This result, or {@link FencedOutException} when a newer epoch got there first. */
	public FencedWriteResult orThrow(EpochFence fence) {
		if (isFencedOut()) {
			throw new FencedOutException(fence.group(), fence.epoch(), this.supersededBy,
					"Write of epoch " + fence.epoch() + " of group '" + fence.group() + "' fenced out: epoch "
							+ this.supersededBy.getAsLong() + " has written the document");
		}
		return this;
	}

}
