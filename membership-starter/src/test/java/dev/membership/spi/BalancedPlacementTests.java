package dev.membership.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.membership.spi.PlacementPolicy.Demand;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default placement at fixed inputs: balanced, sticky, and moving no more than a join
 * or a leave must.
 */
class BalancedPlacementTests {

	private final BalancedPlacement placement = new BalancedPlacement();

	private static SortedSet<String> members(int count) {
		SortedSet<String> members = new TreeSet<>();
		for (int i = 0; i < count; i++) {
			members.add("n" + i);
		}
		return members;
	}

	private static List<@Nullable String> none(int partitions) {
		return new ArrayList<>(Collections.nCopies(partitions, null));
	}

	private static Map<String, Integer> counts(List<@Nullable String> owners) {
		Map<String, Integer> counts = new HashMap<>();
		owners.forEach((o) -> counts.merge(o, 1, Integer::sum));
		return counts;
	}

	private static int spread(List<@Nullable String> owners, SortedSet<String> members) {
		Map<String, Integer> counts = counts(owners);
		int max = members.stream().mapToInt((m) -> counts.getOrDefault(m, 0)).max().orElse(0);
		int min = members.stream().mapToInt((m) -> counts.getOrDefault(m, 0)).min().orElse(0);
		return max - min;
	}

	private static int moves(List<@Nullable String> before, List<@Nullable String> after) {
		int moved = 0;
		for (int p = 0; p < before.size(); p++) {
			if (before.get(p) != null && !before.get(p).equals(after.get(p))) {
				moved++;
			}
		}
		return moved;
	}

	@Test
	void partitionsSpreadEvenlyFromNothing() {
		List<@Nullable String> owners = BalancedPlacement.partitions(new Demand("t", 8, members(3), none(8)));
		assertThat(owners).doesNotContainNull();
		assertThat(spread(owners, members(3))).isLessThanOrEqualTo(1);
		assertThat(counts(owners)).containsOnlyKeys("n0", "n1", "n2");
	}

	@Test
	void aPlacementThatIsBalancedStaysAsItIs() {
		List<@Nullable String> owners = BalancedPlacement.partitions(new Demand("t", 10, members(3), none(10)));
		assertThat(BalancedPlacement.partitions(new Demand("t", 10, members(3), owners))).isEqualTo(owners);
	}

	@Test
	void joinsAndLeavesMoveNoMoreThanTheyMustAndStayBalanced() {
		Random random = new Random(42);
		for (int round = 0; round < 500; round++) {
			int partitions = 1 + random.nextInt(300);
			int n = 1 + random.nextInt(12);
			SortedSet<String> before = members(n);
			List<@Nullable String> owners = BalancedPlacement
				.partitions(new Demand("t", partitions, before, none(partitions)));
			// a join moves at most what the newcomer takes
			SortedSet<String> joined = new TreeSet<>(before);
			joined.add("new");
			List<@Nullable String> afterJoin = BalancedPlacement
				.partitions(new Demand("t", partitions, joined, owners));
			assertThat(moves(owners, afterJoin)).isLessThanOrEqualTo((partitions + n) / (n + 1));
			assertThat(spread(afterJoin, joined)).isLessThanOrEqualTo(1);
			// a leave moves only what the leaver had
			if (n > 1) {
				String leaver = "n" + random.nextInt(n);
				SortedSet<String> left = new TreeSet<>(before);
				left.remove(leaver);
				List<@Nullable String> afterLeave = BalancedPlacement
					.partitions(new Demand("t", partitions, left, owners));
				for (int p = 0; p < partitions; p++) {
					if (!leaver.equals(owners.get(p))) {
						assertThat(afterLeave.get(p)).isEqualTo(owners.get(p));
					}
				}
				assertThat(spread(afterLeave, left)).isLessThanOrEqualTo(1);
			}
		}
	}

	@Test
	void noEligibleMemberPlacesNothing() {
		assertThat(BalancedPlacement.partitions(new Demand("t", 3, new TreeSet<>(), List.of("a", "b", "c"))))
			.containsExactly(null, null, null);
	}

	@Test
	void plainLeadershipsOfSeveralGroupsSpreadOverTheMembers() {
		List<Demand> groups = new ArrayList<>();
		for (String group : List.of("a", "b", "c", "d", "e", "f")) {
			// all led by the first node to start
			groups.add(new Demand(group, 1, members(3), List.of("n0")));
		}
		// n0 also leads default
		Map<String, GroupAssignment> placed = this.placement.place(groups, Map.of("n0", 1));
		Map<String, Integer> counts = new HashMap<>(Map.of("n0", 1));
		placed.values().forEach((a) -> counts.merge(a.owner(0), 1, Integer::sum));
		assertThat(counts.values()).allSatisfy((c) -> assertThat(c).isBetween(2, 3));
		assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(7);
	}

	@Test
	void aLeadershipStaysWithItsOwnerWhileBalanced() {
		List<Demand> groups = List.of(new Demand("a", 1, members(2), List.of("n1")),
				new Demand("b", 1, members(2), List.of("n0")));
		Map<String, GroupAssignment> placed = this.placement.place(groups, Map.of());
		assertThat(placed.get("a").owner(0)).isEqualTo("n1");
		assertThat(placed.get("b").owner(0)).isEqualTo("n0");
	}

	@Test
	void aLeadershipGoesOnlyToAMemberThatTakesPartInItsGroup() {
		SortedSet<String> only = new TreeSet<>(List.of("n2"));
		Map<String, GroupAssignment> placed = this.placement.place(List.of(new Demand("a", 1, only, List.of("n0"))),
				Map.of("n0", 1));
		assertThat(placed.get("a").owner(0)).isEqualTo("n2");
	}

	@Test
	void thePartitionsLeftGoToTheMemberFurthestBelowItsShareSmallestIdFirstAsOneByOneWould() {
		Random random = new Random(32);
		for (int round = 0; round < 200; round++) {
			SortedSet<String> members = members(1 + random.nextInt(40));
			int partitions = 1 + random.nextInt(300);
			List<@Nullable String> owners = none(partitions);
			List<String> all = new ArrayList<>(members);
			all.add("gone"); // a departed owner's partitions are placed again
			for (int p = 0; p < partitions; p++) {
				if (random.nextInt(3) > 0) {
					owners.set(p, all.get(random.nextInt(all.size())));
				}
			}
			Demand demand = new Demand("t", partitions, members, owners);
			assertThat(BalancedPlacement.partitions(demand)).as("round %d", round).isEqualTo(oneByOne(demand));
		}
	}

	@Test
	void placesTheDocumentedMaximumOverTwoThousandMembersFromNothingBalanced() {
		SortedSet<String> members = members(2000);
		List<@Nullable String> placed = BalancedPlacement.partitions(new Demand("t", 4096, members, none(4096)));
		assertThat(placed).doesNotContainNull();
		assertThat(spread(placed, members)).isLessThanOrEqualTo(1);
	}

	/**
	 * The placement as it was written first: each partition left scans every member for
	 * the one with most room.
	 */
	private static List<@Nullable String> oneByOne(Demand demand) {
		List<String> members = new ArrayList<>(demand.eligible());
		Map<String, Integer> held = new HashMap<>();
		demand.owners().forEach((o) -> {
			if (o != null && demand.eligible().contains(o)) {
				held.merge(o, 1, Integer::sum);
			}
		});
		members.sort(java.util.Comparator.<String>comparingInt((m) -> held.getOrDefault(m, 0))
			.reversed()
			.thenComparing(java.util.Comparator.naturalOrder()));
		Map<String, Integer> share = new HashMap<>();
		for (int i = 0; i < members.size(); i++) {
			share.put(members.get(i),
					demand.partitions() / members.size() + ((i < demand.partitions() % members.size()) ? 1 : 0));
		}
		List<@Nullable String> next = none(demand.partitions());
		Map<String, Integer> kept = new HashMap<>();
		for (int p = 0; p < demand.partitions(); p++) {
			String owner = demand.owners().get(p);
			if (owner != null && share.containsKey(owner) && kept.getOrDefault(owner, 0) < share.get(owner)) {
				next.set(p, owner);
				kept.merge(owner, 1, Integer::sum);
			}
		}
		for (int p = 0; p < demand.partitions(); p++) {
			if (next.get(p) == null) {
				String best = null;
				int bestRoom = Integer.MIN_VALUE;
				for (String m : new TreeSet<>(members)) {
					int room = share.get(m) - kept.getOrDefault(m, 0);
					if (room > bestRoom) {
						best = m;
						bestRoom = room;
					}
				}
				next.set(p, best);
				kept.merge(best, 1, Integer::sum);
			}
		}
		return next;
	}

}
