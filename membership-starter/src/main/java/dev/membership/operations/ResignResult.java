package dev.membership.operations;

import org.jspecify.annotations.Nullable;

/**
 * What a resign or a release did.
 *
 * @param group the group
 * @param partition the partition released, or null for a plain group's resign
 * @param resigned whether this node held it and now hands it over (false: it did not lead
 * or own it)
 */
public record ResignResult(String group, @Nullable Integer partition, boolean resigned) {
}
