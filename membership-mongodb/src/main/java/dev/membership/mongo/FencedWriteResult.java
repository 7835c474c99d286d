package dev.membership.mongo;

import java.util.OptionalLong;

import dev.membership.leadership.FencedOutException;
import dev.membership.leadership.FencedWrite;

/**
 * What a fenced write did.
 *
 * @param matchedCount documents the fenced filter matched (so written under this epoch)
 * @param modifiedCount documents actually changed
 * @param upserted whether an upsert inserted a new document
 * @param supersededBy the newest epoch that has written a document the write targeted,
 * when newer than the writer's own: the write skipped that document (all of them: fenced
 * out; some: partial)
 */
public record FencedWriteResult(long matchedCount, long modifiedCount, boolean upserted,
		OptionalLong supersededBy) implements FencedWrite {

	/**
	 * Whether a newer epoch of the group has written the targeted documents, so that this
	 * write changed nothing.
	 */
	@Override
	public boolean isFencedOut() {
		return this.supersededBy.isPresent() && this.matchedCount == 0 && !this.upserted;
	}

	/**
	 * Whether an update of many wrote some of the documents it selected and left others
	 * alone, which a newer epoch had written: never a success.
	 */
	@Override
	public boolean isPartial() {
		return this.supersededBy.isPresent() && (this.matchedCount > 0 || this.upserted);
	}

	/**
	 * Whether the write matched or inserted something under this epoch, and no document
	 * it selected was newer.
	 */
	@Override
	public boolean applied() {
		return (this.matchedCount > 0 || this.upserted) && this.supersededBy.isEmpty();
	}

	/**
	 * This result, or {@link FencedOutException} when a newer epoch got there first, to
	 * all or part of it.
	 */
	public FencedWriteResult orThrow(EpochFence fence) {
		if (isFencedOut() || isPartial()) {
			throw new FencedOutException(fence.group(), fence.epoch(), this.supersededBy, "Write of epoch "
					+ fence.epoch() + " of group '" + fence.group() + "' "
					+ (isPartial() ? "partly fenced out: it wrote " + this.matchedCount + " document(s), and epoch "
							: "fenced out: epoch ")
					+ this.supersededBy.getAsLong() + " has written the " + (isPartial() ? "others" : "document"));
		}
		return this;
	}

}
