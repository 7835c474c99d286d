package dev.membership.store;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One node's document. {@code updatedAt} is stamped by the store with its own clock at every heartbeat (never by the
 * node), so liveness compares database times only.
 */
public record NodeRecord(String nodeId, String incarnation, String address, Instant startedAt, Instant updatedAt,
		List<String> groups, Map<String, LeaderClaim> leading) {

	public NodeRecord {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
		leading = (leading != null) ? Map.copyOf(leading) : Map.of();
	}

}
