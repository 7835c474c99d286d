package dev.membership;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * @param running whether the node's loop runs
 * @param ready whether it has read the cluster (the roster, or as its keeper the node documents) since it started
 * @param lastHeartbeatAge time since the last successful heartbeat or renewal (null if none yet)
 * @param consecutiveFailures store operations that failed in a row
 * @param lastError the last store error message, or null
 * @param duplicateNodeId whether another process wrote this node's document with another incarnation
 */
public record MembershipStatus(boolean running, boolean ready, @Nullable Duration lastHeartbeatAge,
		int consecutiveFailures, @Nullable String lastError, boolean duplicateNodeId) {
}
