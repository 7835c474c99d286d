package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * This node ({@code observerNodeId}) released its lease of {@code group}, held with {@code epoch}, in the database
 * (resign, graceful stop, or a move by the placement): the lease is free now. {@code successor}: the node the placement
 * moved the group to ({@code MOVED}), or null when the release names none.
 */
public record LeaseReleasedEvent(String observerNodeId, String group, long epoch, @Nullable String successor)
		implements GroupEvent {

	/** A release that names no successor. */
	public LeaseReleasedEvent(String observerNodeId, String group, long epoch) {
		this(observerNodeId, group, epoch, null);
	}

}
