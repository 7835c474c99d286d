package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * This node ({@code observerNodeId}) let go of its lease of {@code group}, held with
 * {@code epoch} (resign, graceful stop, or a move by the placement): its leader-only work
 * drained and its belief ended; the notice to {@code successor} (the node it hands the
 * group to; null: none named) and the release in the database are on their way, and the
 * successor may take the lease over from this term at once.
 */
public record LeaseReleasedEvent(String observerNodeId, String group, long epoch,
		@Nullable String successor) implements GroupEvent {

	/** A release that names no successor. */
	public LeaseReleasedEvent(String observerNodeId, String group, long epoch) {
		this(observerNodeId, group, epoch, null);
	}

}
