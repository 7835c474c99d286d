package dev.membership.leadership;

/**
 * This node ({@code observerNodeId}) released the lease of {@code partition} of {@code group} (owned under
 * {@code epoch}) in the database, after its work drained: the partition's next owner may take it at once.
 */
public record PartitionReleasedEvent(String observerNodeId, String group, int partition, long epoch)
		implements GroupEvent {
}
