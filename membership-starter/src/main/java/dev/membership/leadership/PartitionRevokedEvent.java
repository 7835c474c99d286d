package dev.membership.leadership;

/**
 * This node ({@code observerNodeId}) gives up {@code partition} of {@code group}, owned
 * under {@code epoch}. For a graceful hand-over ({@link RevocationReason#MOVED},
 * {@link RevocationReason#SHUTDOWN}) it comes when the drain begins: no new work for the
 * partition starts, and the work still running should finish (commit what it has) before
 * the partition goes to its next owner. Otherwise it comes when the ownership has already
 * ended, no later than its lease could expire.
 */
public record PartitionRevokedEvent(String observerNodeId, String group, int partition, long epoch,
		RevocationReason reason) implements GroupEvent {
}
