package dev.membership.liveness;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A node as the roster lists it. Times are database times; another member's
 * {@code lastHeartbeat} is as of the roster's last write. {@code partitions}: how many
 * partitions each of its partitioned groups has.
 */
public record Member(String nodeId, String incarnation, @Nullable String address, @Nullable Instant startedAt,
		@Nullable Instant lastHeartbeat, List<String> groups, boolean live, Map<String, Integer> partitions) {

	public Member {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
		partitions = (partitions != null) ? Map.copyOf(partitions) : Map.of();
	}

	/** A member without partitioned groups. */
	public Member(String nodeId, String incarnation, @Nullable String address, @Nullable Instant startedAt,
			@Nullable Instant lastHeartbeat, List<String> groups, boolean live) {
		this(nodeId, incarnation, address, startedAt, lastHeartbeat, groups, live, Map.of());
	}

}
