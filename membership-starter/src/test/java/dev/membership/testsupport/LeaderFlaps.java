package dev.membership.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.membership.leadership.LeaderChangedEvent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks that leader changes, as each node published them, were real: in epoch order and
 * once each.
 */
public final class LeaderFlaps {

	private LeaderFlaps() {
	}

	/**
	 * On every observing node, epochs never went back, and each leader it announced came
	 * with a newer epoch than the one before: "a, none, a" or "a, b, a" within one epoch
	 * (a late release notice, a stale claim) is a flap; a leader elected again later,
	 * with a newer epoch, is not.
	 */
	public static void assertNone(List<LeaderChangedEvent> changes) {
		Map<String, List<LeaderChangedEvent>> byObserver = new TreeMap<>();
		changes.forEach((e) -> byObserver.computeIfAbsent(e.observerNodeId(), (k) -> new ArrayList<>()).add(e));
		assertThat(byObserver).as("leader changes seen").isNotEmpty();
		byObserver.forEach((observer, seen) -> {
			long epoch = 0;
			long announced = 0;
			for (LeaderChangedEvent change : seen) {
				assertThat(change.epoch()).as("%s: epochs of %s", observer, seen).isGreaterThanOrEqualTo(epoch);
				epoch = change.epoch();
				if (change.leaderNodeId() != null) {
					assertThat(change.epoch())
						.as("%s: %s announced again without a newer epoch in %s", observer, change.leaderNodeId(), seen)
						.isGreaterThan(announced);
					announced = change.epoch();
				}
			}
		});
	}

}
