package dev.membership.liveness;

import java.time.Instant;
import java.util.List;

/**
 * A node as the roster lists it. Times are database times; another member's {@code lastHeartbeat} is as of the
 * roster's last write.
 */
public record Member(String nodeId, String incarnation, String address, Instant startedAt, Instant lastHeartbeat,
		List<String> groups, boolean live) {

	public Member {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
	}

}
