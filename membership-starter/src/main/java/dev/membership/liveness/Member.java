package dev.membership.liveness;

import java.time.Instant;
import java.util.List;

/** A node as seen in the member listing. Times are database times. */
public record Member(String nodeId, String incarnation, String address, Instant startedAt, Instant lastHeartbeat,
		List<String> groups, boolean live) {
}
