package dev.membership.leadership;

import java.time.Instant;

/** The leader of a group as this node last saw it; {@code leaseExpiresAt} is in database time. */
public record LeaderInfo(String group, String nodeId, String address, long epoch, Instant leaseExpiresAt) {
}
