package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * This node ({@code observerNodeId}) let go of the lease of {@code partition} of
 * {@code group} (owned under {@code epoch}), after its work drained and its belief ended:
 * the notice to {@code successor} (the node the placement puts it on next; null: none
 * named) and the release in the database are on their way, and the partition's next owner
 * may take it over from this term at once.
 */
public record PartitionReleasedEvent(String observerNodeId, String group, int partition, long epoch,
		@Nullable String successor) implements GroupEvent {

	/** A release that names no successor. */
	public PartitionReleasedEvent(String observerNodeId, String group, int partition, long epoch) {
		this(observerNodeId, group, partition, epoch, null);
	}

}
