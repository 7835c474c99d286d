package dev.membership.leadership;

/**
 * This node ({@code observerNodeId}) no longer leads {@code group} under {@code epoch};
 * its belief ended no later than the lease could expire in the database.
 */
public record LeaderRevokedEvent(String observerNodeId, String group, long epoch,
		RevocationReason reason) implements GroupEvent {
}
