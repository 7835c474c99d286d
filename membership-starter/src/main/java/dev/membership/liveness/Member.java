package dev.membership.liveness;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A node as the roster lists it. Times are database times; another member's {@code lastHeartbeat} is as of the
 * roster's last write.
 */
public record Member(String nodeId, String incarnation, @Nullable String address, @Nullable Instant startedAt,
		@Nullable Instant lastHeartbeat,
		List<String> groups, boolean live) {

	public Member {
		groups = (groups != null) ? List.copyOf(groups) : List.of();
	}

}
