package dev.membership.mongo;

/**
 * A fenced write found that a newer leader of the group has written the document: this node's leadership is over,
 * whatever it still believes. Stop the work; the newer leader owns the data now.
 */
public class FencedOutException extends RuntimeException {

	private final String group;

	private final long epoch;

	private final long supersededBy;

	public FencedOutException(EpochFence fence, long supersededBy) {
		super("Write of epoch " + fence.epoch() + " of group '" + fence.group() + "' fenced out: epoch " + supersededBy
				+ " has written the document");
		this.group = fence.group();
		this.epoch = fence.epoch();
		this.supersededBy = supersededBy;
	}

	public String group() {
		return this.group;
	}

	public long epoch() {
		return this.epoch;
	}

	/** The newer epoch seen on the document. */
	public long supersededBy() {
		return this.supersededBy;
	}

}
