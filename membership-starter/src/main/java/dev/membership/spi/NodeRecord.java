package dev.membership.spi;

import java.time.Instant;
import java.util.List;

/**
 * One node's document. {@code updatedAt} is stamped by the store with its own clock at every heartbeat (never by the
 * node), so liveness compares database times only.
 */
public record NodeRecord(String nodeId, String incarnation, String address, Instant startedAt, Instant updatedAt,
		List<String> groups) {

	public NodeRecord {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
	}

}
