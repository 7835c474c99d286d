package dev.membership.store;

import java.time.Instant;

/**
 * What a leader copies of its lease into its own node document at each heartbeat: advisory only (the lease document
 * decides), but it lets every other node learn the leader and the lease expiry from the member listing it reads anyway,
 * without a read of the lease collection per tick.
 */
public record LeaderClaim(long epoch, Instant expiresAt) {
}
