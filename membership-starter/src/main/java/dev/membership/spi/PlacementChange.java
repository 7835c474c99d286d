package dev.membership.spi;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What one roster write changed in one group's placement ({@link GroupAssignment}), so
 * that a member catches up by the partitions that moved rather than by reading every
 * partition's owner: the owner and pin of each partition in {@code moved} (ascending
 * partition numbers; {@code owners} and {@code pins} by position in it), and the pause as
 * it is now. A group whose partition count changed lists every partition;
 * {@code partitions} 0: the group's placement was removed.
 *
 * @param group the group's name
 * @param partitions how many partitions the group has now, 0 when its placement was
 * removed
 * @param moved the partitions whose owner or pin changed
 * @param owners the owner of each of {@code moved}, null where nobody is placed
 * @param pins the pin of each of {@code moved}, null where none
 * @param pausedUntil until when rebalancing is paused now, or null
 */
public record PlacementChange(String group, int partitions, List<Integer> moved, List<@Nullable String> owners,
		List<@Nullable String> pins, @Nullable Instant pausedUntil) {

	public PlacementChange {
		Objects.requireNonNull(group, "group");
		moved = List.copyOf(moved);
		owners = Collections.unmodifiableList(new ArrayList<>(owners));
		pins = Collections.unmodifiableList(new ArrayList<>(pins));
		if (partitions < 0 || owners.size() != moved.size() || pins.size() != moved.size()) {
			throw new IllegalArgumentException("A change of " + group + "'s placement names " + moved.size()
					+ " partition(s), " + owners.size() + " owner(s) and " + pins.size() + " pin(s) of " + partitions);
		}
	}

	/** The change that removes {@code group}'s placement. */
	public static PlacementChange removed(String group) {
		return new PlacementChange(group, 0, List.of(), List.of(), List.of(), null);
	}

}
