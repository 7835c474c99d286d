package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * This node ({@code observerNodeId}) released the lease of {@code partition} of {@code group} (owned under
 * {@code epoch}) in the database, after its work drained: the partition's next owner may take it at once.
 * {@code successor}: the node the placement moved it to ({@code MOVED}), or null when the release names none (a
 * resign, a graceful stop: the placement decides then).
 */
public record PartitionReleasedEvent(String observerNodeId, String group, int partition, long epoch,
		@Nullable String successor) implements GroupEvent {

	/** A release that names no successor. */
	public PartitionReleasedEvent(String observerNodeId, String group, int partition, long epoch) {
		this(observerNodeId, group, partition, epoch, null);
	}

}
