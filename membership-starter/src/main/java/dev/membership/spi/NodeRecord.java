package dev.membership.spi;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One node's document. {@code updatedAt} is stamped by the store with its own clock at
 * every heartbeat (never by the node), so liveness compares database times only; so is
 * {@code startedAt} when the node writes before it knows the database's time.
 * {@code partitions}: how many partitions each of its partitioned groups has (absent for
 * plain groups), which the coordinator needs to place them.
 */
public record NodeRecord(String nodeId, String incarnation, @Nullable String address, @Nullable Instant startedAt,
		@Nullable Instant updatedAt, List<String> groups, Map<String, Integer> partitions) {

	public NodeRecord {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
		partitions = (partitions != null) ? Map.copyOf(partitions) : Map.of();
	}

	/** A node without partitioned groups. */
	public NodeRecord(String nodeId, String incarnation, @Nullable String address, @Nullable Instant startedAt,
			@Nullable Instant updatedAt, List<String> groups) {
		this(nodeId, incarnation, address, startedAt, updatedAt, groups, Map.of());
	}

}
