package dev.membership.bench.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Filters;
import org.bson.RawBsonDocument;

import dev.membership.bench.scale.StoreMeter.NodeCounts;
import dev.membership.bench.scale.StoreMeter.Snapshot;
import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.SharedRuntimes;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.MongoStoreSettings;
import dev.membership.spi.MembershipSettings;

import static dev.membership.bench.scale.PartitionProbes.owners;

/**
 * How the cost grows with N nodes and P partitions: N plain-Java nodes in this JVM, each
 * declaring group {@code t} with P partitions, against one embedded server, at the
 * production timings, without work or run history. Per case: the time until every
 * partition is placed, owned and balanced; then, in steady state, the store calls and
 * documents per interval (followers, the roster's keeper, the cluster), the bytes read,
 * the CPU the keeper's and a follower's engine take per interval (every task of the
 * node's lanes, the client's side of its store calls included, measured with the thread's
 * CPU clock), and the roster document's size.
 */
public final class CostScenario {

	private static final String GROUP = "t";

	private static final String[] HEADER = { "N", "P", "placed, owned and balanced after; settled after",
			"store calls/node/interval: followers mean / max; keeper", "docs read/interval: keeper; cluster (3N + P)",
			"KiB read/interval: keeper; cluster", "CPU ms/interval: keeper; follower mean", "roster bytes",
			"roster writes; partitions moved, per interval",
			"a join: KiB read beyond the steady reads in 2 intervals, all nodes; roster versions; most by a follower",
			"overlapping owners (samples)" };

	/**
	 * @param cases N×P, run in this order
	 * @param renewalInterval the timings: lease 3 and liveness window 2 renewal intervals
	 * (the defaults: 5 s)
	 * @param countIntervals renewal intervals counted in steady state
	 * @param bound how long the placement may take
	 * @param storeThreads threads shared by every node's loop
	 * @param warmUp whether the first case runs once before the others, unrecorded (the
	 * JVM's code warm)
	 */
	public record Settings(List<PartitionScenario.Case> cases, Duration renewalInterval, int countIntervals,
			Duration bound, int storeThreads, boolean warmUp) {
	}

	private final Settings settings;

	private final PrintStream log;

	private final AtomicInteger doubleOwners = new AtomicInteger();

	public CostScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		Duration r = this.settings.renewalInterval();
		Table table = new Table("How the cost grows (one JVM, one embedded server; renew / lease / liveness "
				+ r.toMillis() / 1000.0 + " / " + r.multipliedBy(3).toMillis() / 1000.0 + " / "
				+ r.multipliedBy(2).toMillis() / 1000.0 + " s; no work, no run history)", HEADER);
		if (this.settings.warmUp() && !this.settings.cases().isEmpty()) {
			this.log.println("  warm-up (not recorded):");
			runCase(this.settings.cases().get(0), new Table("warm-up", HEADER));
		}
		for (PartitionScenario.Case c : this.settings.cases()) {
			try {
				runCase(c, table);
			}
			catch (OutOfMemoryError ex) {
				this.log.printf("  %d x %d: out of memory (%s)%n", c.nodes(), c.partitions(), ex.getMessage());
				table.row(c.nodes(), c.partitions(),
						"out of heap (" + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB)", "-", "-", "-", "-",
						"-", "-", "-", "-");
			}
		}
		table.note("- Placed: from the first node's start until every partition is owned by one running node and the "
				+ "owned counts differ by at most one; settled: from the same start until the roster's version and every "
				+ "partition's owner stayed the same for two intervals (polled every fifth of one). Then "
				+ this.settings.countIntervals() + " intervals counted: "
				+ "store calls are every call a node made through its runtime; documents are those in cursor replies "
				+ "plus findAndModify values, and KiB the replies' bytes (the keeper's alone, and all nodes together; the harness's own reads "
				+ "left out). A keeper that changed during the count is flagged. "
				+ "CPU: the thread CPU time of every task on the node's four lanes (loop, watchdog, reactions, "
				+ "application), the client's side of its store calls included, not the server's. The keeper of the "
				+ "roster also leads default. Roster bytes: the BSON size of the roster document as stored; roster writes: "
				+ "versions the keeper wrote while counted; partitions moved: those whose owner changed meanwhile. A join: "
				+ "one node more after the count; what the nodes that were there read in the two intervals after its start "
				+ "beyond their own steady reads (as counted), the roster versions the keeper wrote meanwhile, and the "
				+ "most one follower read beyond its own. "
				+ "Overlapping owners: samples (every 50 ms until placed, then every fifth of an interval until settled) "
				+ "in which one partition had two owners.");
		return table;
	}

	private void runCase(PartitionScenario.Case c, Table table) {
		this.doubleOwners.set(0);
		this.log.printf("  %d nodes x %d partitions: starting%n", c.nodes(), c.partitions());
		StoreMeter meter = new StoreMeter();
		List<MembershipNode> running = new ArrayList<>();
		Map<MembershipNode, NodeCounts> counts = new HashMap<>();
		try (EmbeddedMongoServer server = new EmbeddedMongoServer();
				MongoClient client = server.newClient(meter);
				SharedRuntimes runtimes = new SharedRuntimes(this.settings.storeThreads(), 4)) {
			long start = System.nanoTime();
			for (int i = 0; i < c.nodes(); i++) {
				start(c, "node-" + i, client, runtimes, running, counts);
				if (i % 20 == 19) {
					Waits.pause(Duration.ofMillis(100));
				}
			}
			String placed = untilPlaced(c, running, start) + "; " + untilSettled(client, running, start);
			Map<Integer, String> ownersBefore = owners(running, GROUP, this.doubleOwners);
			long versionBefore = rosterVersion(client);
			MembershipNode keeper = keeper(running);
			Map<String, Long> commandsBefore = meter.byName();
			// the nodes' own counts, taken right at the window's ends: the harness's
			// reads are nobody's
			Map<MembershipNode, Snapshot> before = snapshots(running, counts);
			Map<MembershipNode, Long> cpuBefore = cpu(running, counts);
			long countStart = System.nanoTime();
			Waits.pause(this.settings.renewalInterval().multipliedBy(this.settings.countIntervals()));
			Map<MembershipNode, Snapshot> after = snapshots(running, counts);
			Map<MembershipNode, Long> cpuAfter = cpu(running, counts);
			double intervals = (System.nanoTime() - countStart) / (double) this.settings.renewalInterval().toNanos();
			String churn = String.format(Locale.ROOT, "%.2f; %.1f", (rosterVersion(client) - versionBefore) / intervals,
					PartitionProbes.moved(ownersBefore, owners(running, GROUP, this.doubleOwners)) / intervals);
			Map<String, Long> commands = new java.util.TreeMap<>();
			meter.byName()
				.forEach((name, n) -> commands.put(name,
						Math.round((n - commandsBefore.getOrDefault(name, 0L)) / intervals)));
			boolean sameKeeper = keeper != null && keeper == keeper(running);
			double sum = 0;
			double max = 0;
			double cpuSum = 0;
			int followers = 0;
			Snapshot keeperCounts = null;
			double keeperCpu = 0;
			Snapshot cluster = new Snapshot(0, 0, 0, 0, 0);
			for (MembershipNode n : running) {
				Snapshot delta = after.get(n).minus(before.get(n));
				cluster = cluster.plus(delta);
				double cpu = (cpuAfter.get(n) - cpuBefore.get(n)) / intervals / 1e6;
				if (n == keeper) {
					keeperCounts = delta;
					keeperCpu = cpu;
				}
				else {
					sum += delta.calls() / intervals;
					max = Math.max(max, delta.calls() / intervals);
					cpuSum += cpu;
					followers++;
				}
			}
			String flag = sameKeeper ? "" : " (keeper changed)";
			double keeperCalls = (keeperCounts != null) ? keeperCounts.calls() / intervals : 0;
			double keeperDocs = (keeperCounts != null) ? keeperCounts.documents() / intervals : 0;
			double keeperKib = (keeperCounts != null) ? keeperCounts.bytes() / intervals / 1024 : 0;
			String calls = String.format(Locale.ROOT, "%.2f / %.2f; %.2f%s", sum / Math.max(1, followers), max,
					keeperCalls, flag);
			String docs = String.format(Locale.ROOT, "%.0f; %.0f (%d)", keeperDocs, cluster.documents() / intervals,
					3 * c.nodes() + c.partitions());
			double clusterBytesPerInterval = cluster.bytes() / intervals;
			String kib = String.format(Locale.ROOT, "%.1f; %.1f", keeperKib, clusterBytesPerInterval / 1024);
			String cpu = String.format(Locale.ROOT, "%.2f; %.2f", keeperCpu, cpuSum / Math.max(1, followers));
			String roster = String.format(Locale.ROOT, "%,d", rosterBytes(client));
			Map<MembershipNode, Double> baseline = new HashMap<>();
			running.forEach((n) -> baseline.put(n, after.get(n).minus(before.get(n)).bytes() / intervals));
			String join = join(c, client, runtimes, running, counts, baseline);
			this.log.printf("  placed %s; calls %s; docs %s; KiB %s; CPU %s; roster %s; churn %s; join %s; "
					+ "commands/interval %s%n", placed, calls, docs, kib, cpu, roster, churn, join, commands);
			table.row(c.nodes(), c.partitions(), placed, calls, docs, kib, cpu, roster, churn, join,
					this.doubleOwners.get());
			running.forEach(MembershipNode::halt);
		}
	}

	/**
	 * What a join costs in reads: a node more, then two intervals; the bytes the nodes
	 * that were there read meanwhile beyond what they read in two intervals of the count
	 * ({@code baseline}, per interval), the roster versions the keeper wrote for it, and
	 * the most one follower read beyond its own baseline.
	 */
	private String join(PartitionScenario.Case c, MongoClient client, SharedRuntimes runtimes,
			List<MembershipNode> running, Map<MembershipNode, NodeCounts> counts,
			Map<MembershipNode, Double> baseline) {
		List<MembershipNode> there = List.copyOf(running);
		Map<MembershipNode, Snapshot> before = snapshots(there, counts);
		long version = rosterVersion(client);
		start(c, "joiner", client, runtimes, running, counts);
		long started = System.nanoTime();
		Waits.pause(this.settings.renewalInterval().multipliedBy(2));
		Map<MembershipNode, Snapshot> after = snapshots(there, counts);
		double windows = (System.nanoTime() - started) / (double) this.settings.renewalInterval().toNanos();
		double extra = 0;
		double most = 0;
		for (MembershipNode n : there) {
			double more = after.get(n).minus(before.get(n)).bytes() - baseline.get(n) * windows;
			extra += more;
			if (!n.isLeader("default")) {
				most = Math.max(most, more);
			}
		}
		return String.format(Locale.ROOT, "%.1f; %d; %.1f", extra / 1024, rosterVersion(client) - version, most / 1024);
	}

	private static MembershipNode keeper(List<MembershipNode> running) {
		return running.stream().filter((n) -> n.isLeader("default")).findFirst().orElse(null);
	}

	private static Map<MembershipNode, Snapshot> snapshots(List<MembershipNode> nodes,
			Map<MembershipNode, NodeCounts> counts) {
		Map<MembershipNode, Snapshot> snapshots = new HashMap<>();
		nodes.forEach((n) -> snapshots.put(n, counts.get(n).snapshot()));
		return snapshots;
	}

	private static Map<MembershipNode, Long> cpu(List<MembershipNode> nodes, Map<MembershipNode, NodeCounts> counts) {
		Map<MembershipNode, Long> cpu = new HashMap<>();
		nodes.forEach((n) -> cpu.put(n, counts.get(n).cpuNanos()));
		return cpu;
	}

	private static long rosterVersion(MongoClient client) {
		RawBsonDocument roster = roster(client);
		return (roster != null && roster.containsKey("version")) ? roster.getNumber("version").longValue() : 0;
	}

	private static RawBsonDocument roster(MongoClient client) {
		return client.getDatabase("bench")
			.getCollection(MongoStoreSettings.defaults().leasesCollection(), RawBsonDocument.class)
			.find(Filters.eq("_id", "_roster"))
			.first();
	}

	private static long rosterBytes(MongoClient client) {
		RawBsonDocument roster = roster(client);
		return (roster != null) ? roster.getByteBuffer().remaining() : 0;
	}

	private void start(PartitionScenario.Case c, String id, MongoClient client, SharedRuntimes runtimes,
			List<MembershipNode> running, Map<MembershipNode, NodeCounts> counts) {
		MembershipSettings settings = PartitionProbes
			.settings(id, this.settings.renewalInterval(), GROUP, c.partitions())
			.build();
		NodeCounts scope = new NodeCounts();
		MembershipNode node = MembershipNode
			.builder(settings, new MongoMembershipStore(client.getDatabase("bench"), BenchNode.storeSettings(settings)))
			.advertisedAddress("127.0.0.1")
			.runtime(runtimes.runtime(scope))
			.build();
		counts.put(node, scope);
		running.add(node);
		node.start();
	}

	/**
	 * Waits until the roster and the owners stayed the same for two intervals (the keeper
	 * placed everything, and no member missed its liveness meanwhile); the time since
	 * {@code since}, or why not.
	 */
	private String untilSettled(MongoClient client, List<MembershipNode> running, long since) {
		long deadline = System.nanoTime() + this.settings.bound().toNanos();
		long version = rosterVersion(client);
		Map<Integer, String> owners = owners(running, GROUP, this.doubleOwners);
		long stableSince = System.nanoTime();
		long quiet = this.settings.renewalInterval().multipliedBy(2).toNanos();
		while (System.nanoTime() - stableSince < quiet) {
			if (System.nanoTime() > deadline) {
				return "not settled within " + this.settings.bound().toSeconds() + " s";
			}
			Waits.pause(this.settings.renewalInterval().dividedBy(5));
			long v = rosterVersion(client);
			Map<Integer, String> now = owners(running, GROUP, this.doubleOwners);
			if (v != version || !now.equals(owners)) {
				version = v;
				owners = now;
				stableSince = System.nanoTime();
			}
		}
		return String.format(Locale.ROOT, "%.2f s", (stableSince - since) / 1e9);
	}

	/**
	 * Until every partition is owned and balanced: the time since {@code since}, or why
	 * not.
	 */
	private String untilPlaced(PartitionScenario.Case c, List<MembershipNode> running, long since) {
		double seconds = PartitionProbes.secondsUntilBalanced(running, GROUP, c.partitions(), this.settings.bound(),
				since, this.doubleOwners);
		return (seconds >= 0) ? String.format(Locale.ROOT, "%.2f s", seconds)
				: "not within " + this.settings.bound().toSeconds() + " s";
	}

}
