package dev.membership.operations;

import org.jspecify.annotations.Nullable;

/**
 * A move, pin or unpin the coordinator took: applied at its next placement.
 *
 * @param group the partitioned group
 * @param partition the partition
 * @param to the node it goes to, or null for an unpin (it stays where it is until the
 * placement moves it)
 * @param pinned whether it is pinned there
 */
public record PlacementResult(String group, int partition, @Nullable String to, boolean pinned) {
}
