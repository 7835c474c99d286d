package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * The node {@code observerNodeId} saw the leader of {@code group} change.
 * {@code leaderNodeId} is null when the group has no leader as far as this node can tell;
 * {@code epoch} is then the last epoch it knew.
 */
public record LeaderChangedEvent(String observerNodeId, String group, @Nullable String previousLeaderNodeId,
		@Nullable String leaderNodeId, long epoch) implements GroupEvent {
}
