package dev.membership.leadership;

/**
 * This node ({@code observerNodeId}) became the leader of {@code group}; {@code epoch} is
 * the fencing token of its term.
 */
public record LeaderElectedEvent(String observerNodeId, String group, long epoch) implements GroupEvent {
}
