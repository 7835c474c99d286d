package dev.membership.spi;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One node's document. {@code updatedAt} is stamped by the store with its own clock at every heartbeat (never by the
 * node), so liveness compares database times only.
 */
public record NodeRecord(String nodeId, String incarnation, @Nullable String address, @Nullable Instant startedAt,
		@Nullable Instant updatedAt,
		List<String> groups) {

	public NodeRecord {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
	}

}
