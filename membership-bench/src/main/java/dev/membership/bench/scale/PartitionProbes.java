package dev.membership.bench.scale;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.membership.bench.support.Stats;
import dev.membership.engine.MembershipNode;

/** What {@link PartitionScenario} reads off its nodes, and how it prints the hand-offs. */
final class PartitionProbes {

	private PartitionProbes() {
	}

	/** Max − min of the partitions of {@code group} the running nodes own. */
	static int spread(List<MembershipNode> running, String group) {
		int max = 0;
		int min = Integer.MAX_VALUE;
		for (MembershipNode node : running) {
			int owned = node.partitions(group).owned().size();
			max = Math.max(max, owned);
			min = Math.min(min, owned);
		}
		return running.isEmpty() ? 0 : max - min;
	}

	/** Each owned partition's owner; counts in {@code doubleOwners} a sample where one has two. */
	static Map<Integer, String> owners(List<MembershipNode> running, String group, AtomicInteger doubleOwners) {
		Map<Integer, String> owners = new HashMap<>();
		boolean twice = false;
		for (MembershipNode node : running) {
			for (int partition : node.partitions(group).owned()) {
				twice |= owners.put(partition, node.nodeId()) != null;
			}
		}
		if (twice) {
			doubleOwners.incrementAndGet();
		}
		return owners;
	}

	/** Partitions whose owner changed. */
	static long moved(Map<Integer, String> before, Map<Integer, String> after) {
		return after.entrySet().stream().filter((e) -> !e.getValue().equals(before.get(e.getKey()))).count();
	}

	/** The last running node that does not keep the roster (does not lead default). */
	static MembershipNode notKeeper(List<MembershipNode> running) {
		return running.stream().filter((n) -> !n.isLeader("default")).reduce((a, b) -> b).orElseThrow();
	}

	/** Median / p90 / max of graceful hand-offs in ms, with how many. */
	static String handOffCell(List<Double> handOffs) {
		Stats s = new Stats(handOffs);
		return (s.count() == 0) ? "-" : String.format(Locale.ROOT, "%.1f / %.1f / %.1f ms (%d)", s.median(),
				s.percentile(90), s.max(), s.count());
	}

}
