package dev.membership.leadership;

import java.util.OptionalLong;

/**
 * What a fenced write did, in the terms both stores' fences answer in (MongoDB's
 * {@code FencedWriteResult}, PostgreSQL's {@code JdbcFencedWriteResult}). A fence
 * protects what is written through it, each row or document against a write of an older
 * term of its group (or partition). Exactly one of these holds for a write that selected
 * anything: it {@linkplain #applied() applied}, it was {@linkplain #isFencedOut() fenced
 * out}, or it was {@linkplain #isPartial() partial}; only the first is a success.
 */
public interface FencedWrite {

	/**
	 * Whether the write wrote (or inserted) everything it selected under its epoch, and
	 * at least one.
	 */
	boolean applied();

	/**
	 * Whether a newer term wrote what the write selected first, so that it changed
	 * nothing.
	 */
	boolean isFencedOut();

	/**
	 * Whether it wrote some of what it selected and a newer term had written the rest:
	 * never a success.
	 */
	boolean isPartial();

	/**
	 * The newest epoch that had written what the write selected, when newer than the
	 * writer's own.
	 */
	OptionalLong supersededBy();

}
