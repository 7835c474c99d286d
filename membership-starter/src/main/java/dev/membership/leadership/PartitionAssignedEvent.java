package dev.membership.leadership;

/**
 * This node ({@code observerNodeId}) now owns {@code partition} of the partitioned
 * {@code group} under {@code epoch}: it took the partition's lease, and work for the
 * partition runs here until a {@link PartitionRevokedEvent}.
 */
public record PartitionAssignedEvent(String observerNodeId, String group, int partition,
		long epoch) implements GroupEvent {
}
