package dev.membership.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.membership.liveness.Member;
import dev.membership.spi.Holder;

/** The holders, members and times the store contract works with. */
final class StoreFixtures {

	static final Duration HOUR = Duration.ofHours(1);

	static final Holder A = new Holder("node-a", "a-1", "127.0.0.1:1001");

	/** Another incarnation of node-a: the same id after a restart. */
	static final Holder A2 = new Holder("node-a", "a-2", "127.0.0.1:1001");

	static final Holder B = new Holder("node-b", "b-1", "127.0.0.1:1002");

	private StoreFixtures() {
	}

	/** A member with millisecond times, as every store keeps them. */
	static Member member(String nodeId, boolean live) {
		Instant started = Instant.ofEpochMilli(1_700_000_000_123L);
		return new Member(nodeId, nodeId + "-1", "127.0.0.1:1001", started, started.plusSeconds(60),
				List.of("default", "reports"), live);
	}

}
