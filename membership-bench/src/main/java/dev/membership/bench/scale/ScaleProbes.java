package dev.membership.bench.scale;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import com.mongodb.client.MongoClient;

import dev.membership.bench.scale.StoreMeter.Snapshot;
import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.liveness.Member;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRuntime;

/**
 * What {@link ScaleScenario} asks of its nodes and its JVM (who lists whom live, who
 * leads, CPU and heap), how it waits, and how it prints a cell.
 */
final class ScaleProbes {

	private ScaleProbes() {
	}

	static String cell(List<Double> times, int timedOut, Duration bound) {
		Stats s = new Stats(times);
		String cell = times.isEmpty() ? "-" : Table.ms(s.median()) + " / " + Table.ms(s.max());
		return (timedOut == 0) ? cell : cell + " (" + timedOut + " not within " + bound.toSeconds() + " s)";
	}

	/**
	 * Long enough for a join or a crash to show everywhere, with room for a loaded
	 * machine.
	 */
	static Duration eventBound(ScaleScenario.Config config) {
		return config.leaseDuration().plus(config.renewalInterval().multipliedBy(6)).plusSeconds(30);
	}

	/**
	 * Waits until {@code condition} holds for every node, each node checked until it
	 * holds once (a node that lists a joiner keeps listing it); false after
	 * {@code bound}.
	 */
	static boolean untilEvery(List<MembershipNode> nodes, Predicate<MembershipNode> condition, Duration bound,
			Duration pollEvery) {
		Set<MembershipNode> pending = new LinkedHashSet<>(nodes);
		long deadline = System.nanoTime() + bound.toNanos();
		while (true) {
			pending.removeIf(condition);
			if (pending.isEmpty()) {
				return true;
			}
			if (System.nanoTime() > deadline) {
				return false;
			}
			Waits.pause(pollEvery);
		}
	}

	/**
	 * Polling every node costs O(N) lists of N members: poll less often the larger the
	 * cluster.
	 */
	static Duration pollInterval(int size, int maxMillis) {
		return Duration.ofMillis(Math.max(10, Math.min(maxMillis, size / 20)));
	}

	static boolean allListAllLive(List<MembershipNode> nodes, int size) {
		// stops at the first that does not: cheap while it does not converge
		for (MembershipNode n : nodes) {
			if (n.liveMembers().size() != size) {
				return false;
			}
		}
		return true;
	}

	static String liveRange(List<MembershipNode> nodes) {
		int min = Integer.MAX_VALUE;
		int max = 0;
		for (MembershipNode n : nodes) {
			int live = n.liveMembers().size();
			min = Math.min(min, live);
			max = Math.max(max, live);
		}
		return min + "-" + max;
	}

	static String progress(List<MembershipNode> nodes, int size, StoreMeter meter) {
		int all = 0;
		int min = Integer.MAX_VALUE;
		int max = 0;
		for (MembershipNode n : nodes) {
			int live = n.liveMembers().size();
			all += (live == size) ? 1 : 0;
			min = Math.min(min, live);
			max = Math.max(max, live);
		}
		Snapshot c = meter.cluster().snapshot();
		return String.format(Locale.ROOT, "%d of %d nodes list all live; each lists %d-%d live; %d commands, %d failed",
				all, size, min, max, c.commands(), c.failures());
	}

	/** Who led in how many of the samples, e.g. "node-8 40/40". */
	static String leaders(Map<MembershipNode, Integer> ledSamples, int samples) {
		if (ledSamples.isEmpty()) {
			return "none in " + samples + " samples";
		}
		StringBuilder out = new StringBuilder();
		ledSamples.forEach((n, k) -> out.append((out.length() > 0) ? ", " : "")
			.append(n.nodeId())
			.append(' ')
			.append(k)
			.append('/')
			.append(samples));
		return out.toString();
	}

	static boolean listsLive(MembershipNode node, String id) {
		for (Member m : node.liveMembers()) {
			if (m.nodeId().equals(id)) {
				return true;
			}
		}
		return false;
	}

	static MembershipNode leaderOf(List<MembershipNode> nodes) {
		for (MembershipNode n : nodes) {
			if (n.isLeader(ScaleScenario.GROUP)) {
				return n;
			}
		}
		return null;
	}

	static MembershipNode newNode(ScaleScenario.Config config, String id, MongoClient client, NodeRuntime runtime) {
		MembershipSettings settings = config.settings(id);
		return MembershipNode
			.builder(settings, new MongoMembershipStore(client.getDatabase("bench"), BenchNode.storeSettings(settings)))
			.advertisedAddress("127.0.0.1")
			.runtime(runtime)
			.build();
	}

	static Snapshot plus(Snapshot a, Snapshot b) {
		return new Snapshot(a.calls() + b.calls(), a.commands() + b.commands(), a.documents() + b.documents(),
				a.bytes() + b.bytes(), a.failures() + b.failures());
	}

	static String count(double value) {
		if (value >= 1e6) {
			return Table.num(value / 1e6, 2) + "M";
		}
		if (value >= 1e3) {
			return Table.num(value / 1e3, 1) + "k";
		}
		return Table.num(value, 0);
	}

	static String seconds(Duration d) {
		return (d.toMillis() % 1000 == 0) ? String.valueOf(d.toSeconds()) : Table.num(d.toMillis() / 1000.0, 1);
	}

	/**
	 * CPU time of this whole JVM (nodes, client, server, harness), or 0 where the JVM
	 * does not tell.
	 */
	static long processCpuNanos() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : 0;
	}

	static long usedHeapAfterGc() {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int i = 0; i < 3; i++) {
			System.gc();
			Waits.pause(Duration.ofMillis(100));
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

}
