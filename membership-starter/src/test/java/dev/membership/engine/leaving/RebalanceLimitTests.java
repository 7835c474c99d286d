package dev.membership.engine.leaving;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import dev.membership.engine.placement.CoordinatorPlacement;
import dev.membership.engine.placement.Steering;
import dev.membership.liveness.Member;
import dev.membership.spi.BalancedPlacement;
import dev.membership.spi.GroupAssignment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator's rebalance, interval by interval, with {@code maxMovesPercent}: a
 * scale-out from 4 to 8 nodes at P = 256 moves at most 26 partitions per interval and is
 * balanced within 5 intervals; a departure moves everything of the departed at once. Pure
 * functions: placement, then steering, as the keeper runs them each interval.
 */
class RebalanceLimitTests {

	private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

	private static final int P = 256;

	private static List<Member> members(int live, int total) {
		List<Member> members = new ArrayList<>();
		for (int i = 0; i < total; i++) {
			members.add(new Member("n" + i, "n" + i + "-1", null, NOW, NOW, List.of("default", "t"), i < live,
					Map.of("t", P)));
		}
		return members;
	}

	/**
	 * One interval of the keeper: the policy's placement from the last one, steered with
	 * the limit.
	 */
	private static Map<String, GroupAssignment> interval(List<Member> members, Map<String, GroupAssignment> previous,
			int percent) {
		Map<String, GroupAssignment> placed = CoordinatorPlacement.place(new BalancedPlacement(), members, previous,
				Map.of(), NOW, "n0");
		return Steering.steer(placed, previous, List.of(), members, NOW, percent);
	}

	private static int moves(Map<String, GroupAssignment> before, Map<String, GroupAssignment> after) {
		int moves = 0;
		for (int p = 0; p < P; p++) {
			if (!String.valueOf(before.get("t").owner(p)).equals(String.valueOf(after.get("t").owner(p)))) {
				moves++;
			}
		}
		return moves;
	}

	private static int spread(Map<String, GroupAssignment> placement, int nodes) {
		Map<String, Integer> counts = new TreeMap<>();
		for (int i = 0; i < nodes; i++) {
			counts.put("n" + i, 0);
		}
		placement.get("t").owners().forEach((owner) -> counts.merge(owner, 1, Integer::sum));
		return Collections.max(counts.values()) - Collections.min(counts.values());
	}

	private static Map<String, GroupAssignment> balancedOver(int live, int total) {
		Map<String, GroupAssignment> placement = Map.of();
		for (int i = 0; i < 10 && (placement.isEmpty() || spread(placement, live) > 1); i++) {
			placement = interval(members(live, total), placement, 100);
		}
		assertThat(spread(placement, live)).isLessThanOrEqualTo(1);
		return placement;
	}

	@Test
	void aScaleOutFromFourToEightNodesMovesATenthPerIntervalAndBalancesWithinFiveIntervals() {
		Map<String, GroupAssignment> placement = balancedOver(4, 8);
		List<Member> eight = members(8, 8);
		List<Integer> perInterval = new ArrayList<>();
		for (int i = 0; i < 20 && spread(placement, 8) > 1; i++) {
			Map<String, GroupAssignment> next = interval(eight, placement, 10);
			perInterval.add(moves(placement, next));
			placement = next;
		}
		System.out.printf("rebalance 4 -> 8 nodes at P = %d, 10%%: moves per interval %s%n", P, perInterval);
		assertThat(spread(placement, 8)).isLessThanOrEqualTo(1);
		assertThat(perInterval).allSatisfy((moves) -> assertThat(moves).isLessThanOrEqualTo(26));
		assertThat(perInterval).as("intervals to balance").hasSizeLessThanOrEqualTo(5);
		assertThat(perInterval.stream().mapToInt(Integer::intValue).sum()).as("only what balance needs").isEqualTo(128);
	}

	@Test
	void withoutTheLimitTheSameScaleOutMovesEverythingInOneInterval() {
		Map<String, GroupAssignment> placement = balancedOver(4, 8);
		Map<String, GroupAssignment> next = interval(members(8, 8), placement, 100);
		assertThat(moves(placement, next)).isEqualTo(128);
		assertThat(spread(next, 8)).isLessThanOrEqualTo(1);
	}

	@Test
	void departuresAreNeverLimited() {
		Map<String, GroupAssignment> placement = balancedOver(8, 8);
		Map<String, GroupAssignment> next = interval(members(4, 8), placement, 10);
		assertThat(moves(placement, next)).as("every partition of the four departed nodes, at once").isEqualTo(128);
		assertThat(next.get("t").owners())
			.allSatisfy((owner) -> assertThat(Integer.parseInt(owner.substring(1))).isLessThan(4));
	}

}
