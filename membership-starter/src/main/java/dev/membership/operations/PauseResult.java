package dev.membership.operations;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A pause of rebalancing the coordinator took, or its end.
 *
 * @param pausedUntil when the pause ends, by the database's clock; null after a resume
 */
public record PauseResult(@Nullable Instant pausedUntil) {
}
