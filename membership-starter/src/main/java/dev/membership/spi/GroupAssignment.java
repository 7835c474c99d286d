package dev.membership.spi;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Where the coordinator placed one group's units of work, kept in the roster: the owner
 * of each partition by node id (a plain group has one partition, its leadership), null
 * where nobody is placed. Advice only: a unit's lease decides who owns it; a node takes a
 * unit placed on it once the lease was released or expired, and hands over a unit placed
 * elsewhere.
 *
 * @param partitions how many partitions the group has
 * @param owners the node placed on each partition, by partition number
 * @param pins the node an operator pinned each partition to, by partition number, null
 * where none: the coordinator keeps a pinned partition there while that node is live and
 * takes part
 * @param pausedUntil until when an operator paused rebalancing (the coordinator then
 * moves only departed members' units), or null
 */
public record GroupAssignment(int partitions, List<@Nullable String> owners, List<@Nullable String> pins,
		@Nullable Instant pausedUntil) {

	public GroupAssignment {
		if (partitions < 1) {
			throw new IllegalArgumentException("A group has at least one partition, not " + partitions);
		}
		Objects.requireNonNull(owners, "owners");
		if (owners.size() != partitions) {
			throw new IllegalArgumentException(
					"An assignment of " + partitions + " partitions names " + owners.size() + " owners");
		}
		owners = Collections.unmodifiableList(new ArrayList<>(owners));
		pins = (pins == null || pins.size() != partitions) ? Collections.nCopies(partitions, null)
				: Collections.unmodifiableList(new ArrayList<>(pins));
	}

	/** A placement without pins or pause. */
	public GroupAssignment(int partitions, List<@Nullable String> owners) {
		this(partitions, owners, null, null);
	}

	/** The node placed on {@code partition}, or null. */
	public @Nullable String owner(int partition) {
		return this.owners.get(partition);
	}

	/** The node {@code partition} is pinned to, or null. */
	public @Nullable String pin(int partition) {
		return this.pins.get(partition);
	}

	/** Whether any partition is pinned. */
	public boolean hasPins() {
		return this.pins.stream().anyMatch(Objects::nonNull);
	}

}
