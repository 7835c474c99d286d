package dev.membership.leadership;

/**
 * This node ({@code observerNodeId}) released its lease of {@code group}, held with {@code epoch}, in the database
 * (resign or shutdown): the lease is free now.
 */
public record LeaseReleasedEvent(String observerNodeId, String group, long epoch) implements GroupEvent {
}
