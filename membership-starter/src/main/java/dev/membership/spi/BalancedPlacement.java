package dev.membership.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SortedSet;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * The placement every node uses unless told otherwise: the coordinator (the keeper of the
 * roster) places with it, and a node that sees a unit released computes with it who takes
 * the unit next. A pure function of who may own what and who owns it now, so that it can
 * be tested at fixed inputs and replayed by the simulator:
 * <ul>
 * <li>sticky: a unit stays with its owner while that owner takes part and stays within
 * its share;</li>
 * <li>balanced: the partitions of a group, and the plain leaderships of all groups,
 * differ by at most one between the members that take part (where their groups allow
 * it);</li>
 * <li>few moves: a join moves only what the newcomer takes (at most ⌈P/(N+1)⌉ of a
 * group), a leave only what the leaver had.</li>
 * </ul>
 * Placement is advice: a unit's lease decides who owns it, and a node takes a unit only
 * once its lease was released or expired.
 */
public final class BalancedPlacement implements PlacementPolicy {

	@Override
	public Map<String, GroupAssignment> place(Collection<Demand> demands, Map<String, Integer> fixed) {
		Map<String, GroupAssignment> placed = new TreeMap<>();
		List<Demand> plain = new ArrayList<>();
		for (Demand demand : demands) {
			if (demand.partitions() > 1) {
				placed.put(demand.group(), new GroupAssignment(demand.partitions(), partitions(demand)));
			}
			else {
				plain.add(demand);
			}
		}
		placed.putAll(leaderships(plain, fixed));
		return placed;
	}

	/**
	 * The partitions of one group over its eligible members: each keeps up to its share,
	 * the rest fill the lightest.
	 */
	public static List<@Nullable String> partitions(Demand demand) {
		int count = demand.partitions();
		List<@Nullable String> next = new ArrayList<>(count);
		for (int p = 0; p < count; p++) {
			next.add(null);
		}
		List<String> members = new ArrayList<>(demand.eligible());
		if (members.isEmpty()) {
			return next;
		}
		Map<String, Integer> held = new HashMap<>();
		for (String owner : demand.owners()) {
			if (owner != null && demand.eligible().contains(owner)) {
				held.merge(owner, 1, Integer::sum);
			}
		}
		// the members that hold most keep the larger shares: fewer moves
		members.sort(Comparator.<String>comparingInt((m) -> held.getOrDefault(m, 0))
			.reversed()
			.thenComparing(Comparator.naturalOrder()));
		int base = count / members.size();
		int larger = count % members.size();
		Map<String, Integer> share = new LinkedHashMap<>();
		for (int i = 0; i < members.size(); i++) {
			share.put(members.get(i), base + ((i < larger) ? 1 : 0));
		}
		Map<String, Integer> kept = new HashMap<>();
		for (int p = 0; p < count; p++) {
			String owner = (p < demand.owners().size()) ? demand.owners().get(p) : null;
			if (owner != null && share.containsKey(owner) && kept.getOrDefault(owner, 0) < share.get(owner)) {
				next.set(p, owner);
				kept.merge(owner, 1, Integer::sum);
			}
		}
		// each partition left goes to the member furthest below its share (ties: the
		// smallest id): a queue of them, so that placing P partitions over N members
		// takes P log N steps, not P times N
		PriorityQueue<Room> rooms = new PriorityQueue<>();
		share.forEach((member, size) -> rooms.add(new Room(member, size - kept.getOrDefault(member, 0))));
		for (int p = 0; p < count; p++) {
			if (next.get(p) == null) {
				Room lightest = rooms.poll();
				next.set(p, lightest.member());
				rooms.add(new Room(lightest.member(), lightest.room() - 1));
			}
		}
		return next;
	}

	/**
	 * A member and how many partitions below its share it is; the first is the furthest
	 * below, then the smallest id.
	 */
	private record Room(String member, int room) implements Comparable<Room> {

		@Override
		public int compareTo(Room other) {
			int byRoom = Integer.compare(other.room, this.room);
			return (byRoom != 0) ? byRoom : this.member.compareTo(other.member);
		}

	}

	/**
	 * The leaderships of plain groups: each stays with its owner while that owner is
	 * eligible and not above the others by more than one; the rest go to the eligible
	 * member that leads fewest.
	 */
	public static Map<String, GroupAssignment> leaderships(List<Demand> plain, Map<String, Integer> fixed) {
		Map<String, Integer> load = new TreeMap<>(fixed);
		plain.forEach((d) -> d.eligible().forEach((m) -> load.putIfAbsent(m, 0)));
		int units = plain.size() + fixed.values().stream().mapToInt(Integer::intValue).sum();
		int ceiling = load.isEmpty() ? 0 : (units + load.size() - 1) / load.size();
		List<Demand> sorted = new ArrayList<>(plain);
		sorted.sort(Comparator.comparing(Demand::group));
		Map<String, @Nullable String> owner = new TreeMap<>();
		for (Demand demand : sorted) {
			String current = demand.owners().isEmpty() ? null : demand.owners().get(0);
			if (current != null && demand.eligible().contains(current) && load.get(current) < ceiling) {
				owner.put(demand.group(), current);
				load.merge(current, 1, Integer::sum);
			}
		}
		for (Demand demand : sorted) {
			if (!owner.containsKey(demand.group())) {
				String least = least(demand.eligible(), load);
				owner.put(demand.group(), least);
				if (least != null) {
					load.merge(least, 1, Integer::sum);
				}
			}
		}
		rebalance(sorted, owner, load);
		Map<String, GroupAssignment> placed = new TreeMap<>();
		owner.forEach((group, node) -> {
			List<@Nullable String> owners = new ArrayList<>(1);
			owners.add(node);
			placed.put(group, new GroupAssignment(1, owners));
		});
		return placed;
	}

	/**
	 * Moves leaderships from the busiest member to an eligible one with two fewer, a
	 * bounded number of times.
	 */
	private static void rebalance(List<Demand> plain, Map<String, @Nullable String> owner, Map<String, Integer> load) {
		for (int round = 0; round < plain.size(); round++) {
			boolean moved = false;
			for (Demand demand : plain) {
				String from = owner.get(demand.group());
				String to = least(demand.eligible(), load);
				if (from != null && to != null && load.get(from) - load.get(to) > 1) {
					owner.put(demand.group(), to);
					load.merge(from, -1, Integer::sum);
					load.merge(to, 1, Integer::sum);
					moved = true;
				}
			}
			if (!moved) {
				return;
			}
		}
	}

	private static @Nullable String least(SortedSet<String> eligible, Map<String, Integer> load) {
		String best = null;
		for (String member : eligible) {
			if (best == null || load.get(member) < load.get(best)) {
				best = member;
			}
		}
		return best;
	}

}
