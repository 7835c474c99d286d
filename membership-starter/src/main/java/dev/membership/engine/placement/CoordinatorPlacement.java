package dev.membership.engine.placement;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.PlacementPolicy;

/**
 * What the coordinator (the keeper of the roster) places, each time it keeps the roster:
 * every group a live member takes part in but the default group (whose leader is the
 * coordinator itself), with the partition count most members declare, over the members
 * that declare it, starting from who owns each unit now: the holder of a plain group's
 * lease while it holds, the last placement of a partition. So a new coordinator continues
 * from the roster as stored (its keeper reads it before its term's first write), and a
 * coordinator change moves nothing. Decisions only; no store calls.
 */
public final class CoordinatorPlacement {

	private CoordinatorPlacement() {
	}

	public static Map<String, GroupAssignment> place(PlacementPolicy policy, List<Member> members,
			Map<String, GroupAssignment> previous, Map<String, LeaseRecord> leases, Instant now, String coordinator) {
		Map<String, Integer> counts = counts(members);
		Map<String, @Nullable List<@Nullable String>> owners = new TreeMap<>();
		counts.forEach((group, count) -> {
			GroupAssignment before = previous.get(group);
			if (count == 1) {
				String holder = Assignments.holder(leases.get(group), now);
				String placed = (before != null && before.partitions() == 1) ? before.owner(0) : null;
				List<@Nullable String> one = new ArrayList<>(1);
				one.add((holder != null) ? holder : placed);
				owners.put(group, one);
			}
			else if (before != null && before.partitions() == count) {
				owners.put(group, before.owners());
			}
		});
		return policy.place(Assignments.demands(counts, members, owners), Map.of(coordinator, 1));
	}

	/**
	 * Each group's partition count, as most live members declare it (a tie: the larger
	 * count); 1 for a plain group. A member declaring another count takes no part until
	 * it agrees.
	 */
	static Map<String, Integer> counts(List<Member> members) {
		Map<String, Map<Integer, Integer>> votes = new TreeMap<>();
		for (Member m : members) {
			if (!m.live()) {
				continue;
			}
			for (String group : m.groups()) {
				if (!MembershipSettings.DEFAULT_GROUP.equals(group)) {
					votes.computeIfAbsent(group, (g) -> new TreeMap<>(Collections.reverseOrder()))
						.merge(m.partitions().getOrDefault(group, 1), 1, Integer::sum);
				}
			}
		}
		Map<String, Integer> counts = new TreeMap<>();
		votes.forEach((group, byCount) -> {
			int best = 0;
			int bestVotes = -1;
			// larger counts first: they win ties
			for (Map.Entry<Integer, Integer> vote : byCount.entrySet()) {
				if (vote.getValue() > bestVotes) {
					best = vote.getKey();
					bestVotes = vote.getValue();
				}
			}
			counts.put(group, best);
		});
		return counts;
	}

}
