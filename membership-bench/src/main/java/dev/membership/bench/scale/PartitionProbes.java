package dev.membership.bench.scale;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.spi.MembershipSettings;

/**
 * What {@link PartitionScenario} reads off its nodes, and how it prints the hand-offs.
 */
final class PartitionProbes {

	private PartitionProbes() {
	}

	/**
	 * A node's settings at renewal interval {@code r} (lease 3r, liveness window 2r),
	 * with {@code group} partitioned.
	 */
	static MembershipSettings.Builder settings(String id, Duration r, String group, int partitions) {
		return MembershipSettings.builder(id)
			.renewalInterval(r)
			.leaseDuration(r.multipliedBy(3))
			.livenessWindow(r.multipliedBy(2))
			.partitions(group, partitions);
	}

	/**
	 * Polls every 50 ms until every partition of {@code group} is owned by one running
	 * node and the owned counts differ by at most one; the seconds since {@code since},
	 * or -1 when not within {@code bound}.
	 */
	static double secondsUntilBalanced(List<MembershipNode> running, String group, int partitions, Duration bound,
			long since, AtomicInteger doubleOwners) {
		long deadline = System.nanoTime() + bound.toNanos();
		while (System.nanoTime() < deadline) {
			if (owners(running, group, doubleOwners).size() == partitions && spread(running, group) <= 1) {
				return (System.nanoTime() - since) / 1e9;
			}
			Waits.pause(Duration.ofMillis(50));
		}
		return -1;
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

	/**
	 * Each owned partition's owner; counts in {@code doubleOwners} a sample where one has
	 * two.
	 */
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

	/** The table's note. */
	static String note(int rollingAtMost) {
		return "- Balanced: every partition owned by exactly one running node (its term valid), owned counts differing "
				+ "by at most one. Times from the first node's start (placed), or from the join's start(), the leave's "
				+ "stop() call, the crash's halt(). Joins: four, each started 2 + k/4 intervals after the cluster settled "
				+ "from the one before (whose joiner then stopped gracefully), so at four phases of the keeper's read; "
				+ "the worst first. Moved: partitions whose owner changed; min for a join is "
				+ "floor(P / (N + 1)), what the newcomer needs for balance. Store calls: every call a node made through "
				+ "its runtime, its run history's writes among them (every node runs an empty task in each partition it "
				+ "owns every half interval, recorded in the MongoDB run history: one write per interval with runs); documents: those in cursor replies plus findAndModify values, all nodes together. The "
				+ "keeper of the roster also leads default. Overlapping beliefs: pairs of nodes whose "
				+ "beliefs in one partition (or group) overlapped, each begun and ended by its node's engine, on one clock "
				+ "(a halted node's end when it halted); 0 expected, through every step, the rolling restart included. In "
				+ "brackets, samples (every 50 ms) that showed a partition with two owners: the sampler reads the nodes "
				+ "one after another, so a hand-over that falls between two reads shows there. Graceful hand-off: for "
				+ "each partition of a node stopped gracefully (the leave and every rolling restart), the time from the end "
				+ "of its belief (its drain over) to the start of its successor's, on one clock. Rolling restart: "
				+ "each node in turn, the roster's keeper last, stopped gracefully and replaced by a new node, the "
				+ "next one only once balanced again; moves: partitions that changed owner, summed over the restarts; "
				+ "with a restart grace (-Dbench.partitions.restart-grace-seconds), each node restarts under its own "
				+ "id once its stop ended, and the longest a partition went unowned is given. " + "Above "
				+ rollingAtMost + " nodes, the last " + rollingAtMost + " of that order (the keeper "
				+ "among them): one node takes one to two intervals to balance, so a hundred would take over 20 "
				+ "minutes.";
	}

}
