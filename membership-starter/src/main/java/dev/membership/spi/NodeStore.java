package dev.membership.spi;

import java.time.Instant;
import java.util.List;

/**
 * The nodes' documents a store keeps: each node's heartbeat, which the roster's keeper
 * reads to tell who is alive. Part of {@link MembershipStore}; checked by
 * {@code LivenessContract} in {@code membership-test}.
 */
public interface NodeStore {

	/**
	 * Upserts the node's document, stamping {@code updatedAt} with the store's clock
	 * ({@code node.updatedAt()} is ignored), and {@code startedAt} too when the node does
	 * not know it yet (null: its first write, before any sample of the store's clock),
	 * and says when, and whether the document belonged to another incarnation.
	 */
	Heartbeat heartbeat(NodeRecord node);

	/** Every node document, live or not: the roster keeper's read. */
	List<NodeRecord> findNodes();

	/** Removes the node's document if it still belongs to {@code incarnation}. */
	void removeNode(String nodeId, String incarnation);

	/**
	 * Removes node documents whose last heartbeat is older than {@code cutoff}; returns
	 * how many.
	 */
	long removeNodesNotSeenSince(Instant cutoff);

}
