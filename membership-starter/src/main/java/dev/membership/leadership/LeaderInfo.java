package dev.membership.leadership;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The leader of a group as this node last saw it; {@code leaseExpiresAt} is in database
 * time.
 */
public record LeaderInfo(String group, String nodeId, @Nullable String address, long epoch, Instant leaseExpiresAt) {
}
