package dev.membership.bench.scale;

import static dev.membership.bench.scale.ScaleProbes.allListAllLive;
import static dev.membership.bench.scale.ScaleProbes.cell;
import static dev.membership.bench.scale.ScaleProbes.count;
import static dev.membership.bench.scale.ScaleProbes.eventBound;
import static dev.membership.bench.scale.ScaleProbes.leaderOf;
import static dev.membership.bench.scale.ScaleProbes.leaders;
import static dev.membership.bench.scale.ScaleProbes.listsLive;
import static dev.membership.bench.scale.ScaleProbes.liveRange;
import static dev.membership.bench.scale.ScaleProbes.newNode;
import static dev.membership.bench.scale.ScaleProbes.plus;
import static dev.membership.bench.scale.ScaleProbes.pollInterval;
import static dev.membership.bench.scale.ScaleProbes.processCpuNanos;
import static dev.membership.bench.scale.ScaleProbes.progress;
import static dev.membership.bench.scale.ScaleProbes.seconds;
import static dev.membership.bench.scale.ScaleProbes.untilEvery;
import static dev.membership.bench.scale.ScaleProbes.usedHeapAfterGc;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.mongodb.client.MongoClient;

import dev.membership.engine.MembershipNode;
import dev.membership.engine.MembershipSettings;
import dev.membership.spi.NodeRuntime;
import dev.membership.bench.scale.StoreMeter.NodeCounts;
import dev.membership.bench.scale.StoreMeter.Snapshot;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.SharedRuntimes;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;

/**
 * Scale: N plain-Java nodes in this JVM against one embedded server and one shared client, on a few shared threads
 * ({@link SharedRuntimes}). Per size: how long until every node lists every node as live, the store load per node
 * per renewal interval once it has (store calls, commands, documents and bytes read, split into followers and the
 * leader), how long the {@code find} commands take, how long a new node takes to be listed live everywhere and a
 * crashed one to be listed live nowhere, and heap per node. Measures through the node's public API and the driver's
 * command events only, so it runs unchanged whatever the store's methods are.
 */
public final class ScaleScenario {

	/** One size: N nodes with these timings. */
	public record Config(int nodes, Duration renewalInterval, Duration leaseDuration, Duration livenessWindow) {

		/** N nodes with the production defaults ({@code MembershipSettings.builder(id)} as it comes). */
		public static Config defaults(int nodes) {
			MembershipSettings d = MembershipSettings.builder("defaults").build();
			return new Config(nodes, d.renewalInterval(), d.leaseDuration(), d.livenessWindow());
		}

		/** {@code N}: N nodes at the defaults; {@code N@R}: renew every R seconds, lease 3R, liveness window 2R. */
		public static Config parse(String spec) {
			int at = spec.indexOf('@');
			if (at < 0) {
				return defaults(Integer.parseInt(spec));
			}
			Duration renew = Duration.ofMillis(Math.round(Double.parseDouble(spec.substring(at + 1)) * 1000));
			return of(Integer.parseInt(spec.substring(0, at)), renew, renew.multipliedBy(3), renew.multipliedBy(2));
		}

		public static Config of(int nodes, Duration renewalInterval, Duration leaseDuration,
				Duration livenessWindow) {
			return new Config(nodes, renewalInterval, leaseDuration, livenessWindow);
		}

		MembershipSettings settings(String id) {
			return MembershipSettings.builder(id)
				.renewalInterval(this.renewalInterval)
				.leaseDuration(this.leaseDuration)
				.livenessWindow(this.livenessWindow)
				.build();
		}

		String timings() {
			return seconds(this.renewalInterval) + " / " + seconds(this.leaseDuration) + " / "
					+ seconds(this.livenessWindow) + " s";
		}

		boolean sameTimings(Config other) {
			return this.renewalInterval.equals(other.renewalInterval) && this.leaseDuration.equals(other.leaseDuration)
					&& this.livenessWindow.equals(other.livenessWindow);
		}

	}

	/**
	 * @param configs the sizes, run in this order; once one does not converge, larger ones with the same timings are
	 * skipped
	 * @param countIntervals renewal intervals counted after convergence
	 * @param joins nodes started one after another once the cluster has converged
	 * @param crashes non-leaders halted one after another after the joins
	 * @param convergeBound how long the nodes may take to list each other, after the last one started
	 * @param startsPerSecond how fast the nodes are started (staggered, against a thundering herd)
	 * @param storeThreads threads shared by every node's loop (store calls block on them)
	 */
	public record Settings(List<Config> configs, int countIntervals, int joins, int crashes, Duration convergeBound,
			int startsPerSecond, int storeThreads) {
	}

	static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private static final int LIGHT_THREADS = 4;

	private final Settings settings;

	private final PrintStream log;

	public ScaleScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		Table table = new Table("Scale (one JVM, one embedded server, one shared client, " + this.settings.storeThreads()
				+ " + " + LIGHT_THREADS + " shared threads; counted over " + this.settings.countIntervals()
				+ " renewal intervals)", "nodes", "renew / lease / liveness", "all list all live after",
				"store calls/interval followers / leader", "commands/node/interval",
				"docs read/interval followers / leader", "cluster docs read/interval", "cluster MiB read/interval",
				"find p50 / p99 ms", "join listed everywhere median / max ms", "crash unlisted everywhere median / max ms",
				"heap/node KiB", "CPU during count, cores");
		List<Config> collapsed = new ArrayList<>();
		for (Config config : this.settings.configs()) {
			Config smaller = collapsed.stream()
				.filter((c) -> c.sameTimings(config) && c.nodes() <= config.nodes())
				.findFirst()
				.orElse(null);
			if (smaller != null) {
				this.log.printf("  %d nodes (%s): skipped, %d did not converge%n", config.nodes(), config.timings(),
						smaller.nodes());
				table.row(config.nodes(), config.timings(), "skipped: " + smaller.nodes() + " did not converge", "-",
						"-", "-", "-", "-", "-", "-", "-", "-", "-");
				continue;
			}
			if (!runSize(config, table)) {
				collapsed.add(config);
			}
		}
		table.note(note());
		return table;
	}

	private String note() {
		return String.join("\n", List.of(
				"- Plain-Java nodes (no Spring) in one JVM, all sharing one MongoDB client (a process per node would "
						+ "each have its own) against one embedded server (mongo-java-server, in memory), with timings "
						+ "renewal interval / lease / liveness window as in the second column (5 / 15 / 10 s are the "
						+ "production defaults). Nodes run on a bench-only NodeRuntime: one timer thread, "
						+ this.settings.storeThreads() + " threads shared by every node's loop (store calls block), "
						+ LIGHT_THREADS + " by every node's watchdog and event lanes; each lane is a serial strand on "
						+ "them. Nodes start staggered, " + this.settings.startsPerSecond() + " per second.",
				"- All list all live after: seconds from the last node's start() until every node's liveMembers() "
						+ "holds every node. A size that does not get there within the bound says so, is counted "
						+ "anyway (the load it makes while it fails), gets no join or crash, and larger sizes with the "
						+ "same timings are skipped.",
				"- Counts: over " + this.settings.countIntervals() + " renewal intervals right after convergence (after "
						+ "the heap sample). Store calls: the node's calls through its runtime (every store call of a "
						+ "node goes through NodeRuntime.call). Commands, documents and bytes: a CommandListener on the "
						+ "shared client charges each command to the node whose store call runs on that thread. "
						+ "Documents read: documents in cursor replies (find, getMore batches) plus one per "
						+ "findAndModify reply whose value is not null. Leader: the node where isLeader(\"default\") "
						+ "held in most of the samples taken every 100 ms during the count (\"-\": none led); "
						+ "followers: the mean over the nodes that never led in a sample. Cluster docs: all "
						+ "nodes' documents per interval, and that as a multiple of N. Cluster MiB: the encoded size of "
						+ "every reply (the driver hands listeners the raw reply bytes, so every reply is measured, "
						+ "none estimated).",
				"- find p50 / p99: the driver's elapsed time (CommandSucceededEvent) of every find command in the count. "
						+ "The stand-in answers a find with every document in its first batch (no getMore in these "
						+ "runs), so this is the whole listing's round trip: the server's work and, on a loaded machine, "
						+ "the waits for a core.",
				"- Join: from start() of a new node until every running node (itself included) lists it live; "
						+ "joins: " + this.settings.joins() + ", one after another. Crash: halt() of a non-leader (no "
						+ "goodbye, its document stays) until no running node lists it live; crashes: "
						+ this.settings.crashes() + ", one after another, after the joins. Both polled through "
						+ "liveMembers().",
				"- Heap per node: used heap after System.gc() with the nodes running and converged, minus before the "
						+ "first node started, divided by N (includes the server's documents and the client).",
				"- CPU: this JVM's CPU time during the count (nodes, client, server and harness together) over the "
						+ "count's wall time; at the number of cores, the machine is saturated and the nodes fall behind "
						+ "their renewal interval (fewer store calls per interval than the same nodes make at small sizes)."));
	}

	/** One size; false when it did not converge. */
	private boolean runSize(Config config, Table table) {
		int size = config.nodes();
		StoreMeter meter = new StoreMeter();
		List<MembershipNode> nodes = new ArrayList<>();
		List<MembershipNode> started = new ArrayList<>(); // the nodes and the joiners: halted before the client closes
		Map<MembershipNode, NodeCounts> counts = new HashMap<>();
		this.log.printf("  %d nodes (%s): starting%n", size, config.timings());
		try (EmbeddedMongoServer server = new EmbeddedMongoServer();
				MongoClient client = server.newClient(meter);
				SharedRuntimes runtimes = new SharedRuntimes(this.settings.storeThreads(), LIGHT_THREADS);
				Halt halt = () -> started.forEach(MembershipNode::halt)) {
			client.getDatabase("bench").listCollectionNames().first(); // connect before the heap baseline
			long heapBefore = usedHeapAfterGc();

			// staggered start: a batch every 100 ms
			int perBatch = Math.max(1, this.settings.startsPerSecond() / 10);
			long firstStart = System.nanoTime();
			for (int i = 0; i < size; i++) {
				if (i > 0 && i % perBatch == 0) {
					Waits.pause(Duration.ofMillis(100));
				}
				NodeCounts scope = new NodeCounts();
				MembershipNode node = newNode(config, "node-" + i, client, runtimes.runtime(scope));
				started.add(node);
				counts.put(node, scope);
				nodes.add(node);
				node.start();
			}
			long lastStart = System.nanoTime();
			this.log.printf("  %d nodes started in %.1f s%n", size, (lastStart - firstStart) / 1e9);

			Duration pollEvery = pollInterval(size, 250);
			long bound = this.settings.convergeBound().toNanos();
			long nextProgress = System.nanoTime() + Duration.ofSeconds(15).toNanos();
			boolean converged = false;
			while (true) {
				if (allListAllLive(nodes, size)) {
					converged = true;
					break;
				}
				long now = System.nanoTime();
				if (now - lastStart > bound) {
					break;
				}
				if (now > nextProgress) {
					this.log.println("    " + progress(nodes, size, meter));
					nextProgress = now + Duration.ofSeconds(15).toNanos();
				}
				Waits.pause(pollEvery);
			}
			double convergedAfter = (System.nanoTime() - lastStart) / 1e9;
			String convergence;
			if (converged) {
				convergence = String.format(Locale.ROOT, "%.1f s", convergedAfter);
				this.log.printf("  %d nodes list each other live after %.1f s%n", size, convergedAfter);
			}
			else {
				convergence = String.format(Locale.ROOT, "did not converge in %.0f s (each lists %s of %d live)",
						convergedAfter, liveRange(nodes), size);
				this.log.printf("  %d nodes did not converge in %.0f s: %s%n", size, convergedAfter,
						progress(nodes, size, meter));
			}
			if (!meter.failuresByKind().isEmpty()) {
				this.log.printf("  failed commands so far: %s%n", meter.failuresByKind());
			}
			long heapAfter = usedHeapAfterGc();

			// the count
			Map<MembershipNode, Snapshot> before = new HashMap<>();
			nodes.forEach((n) -> before.put(n, counts.get(n).snapshot()));
			Snapshot clusterBefore = meter.cluster().snapshot();
			Snapshot strayBefore = meter.unattributed().snapshot();
			Map<String, Long> namesBefore = meter.byName();
			meter.recordFinds();
			long cpuBefore = processCpuNanos();
			long countStart = System.nanoTime();
			long countEnd = countStart + config.renewalInterval().multipliedBy(this.settings.countIntervals()).toNanos();
			// who leads, sampled every 100 ms: the leader is the node that led most often, the followers never led
			Map<MembershipNode, Integer> ledSamples = new HashMap<>();
			int samples = 0;
			for (long now = countStart; now < countEnd; now = System.nanoTime()) {
				MembershipNode l = leaderOf(nodes);
				samples++;
				if (l != null) {
					ledSamples.merge(l, 1, Integer::sum);
				}
				Waits.pause(Duration.ofNanos(Math.min(100_000_000L, Math.max(0, countEnd - now))));
			}
			long countNanos = System.nanoTime() - countStart;
			double cpu = (processCpuNanos() - cpuBefore) / (double) countNanos;
			double intervals = countNanos / (double) config.renewalInterval().toNanos();
			List<Double> finds = meter.stopRecordingFinds().stream().map((n) -> n / 1e6).toList();
			Snapshot cluster = meter.cluster().snapshot().minus(clusterBefore);
			Snapshot stray = meter.unattributed().snapshot().minus(strayBefore);
			Map<String, Long> names = new TreeMap<>(meter.byName());
			names.replaceAll((name, n) -> n - namesBefore.getOrDefault(name, 0L));
			names.values().removeIf((n) -> n == 0);
			MembershipNode leader = ledSamples.entrySet()
				.stream()
				.max(Map.Entry.comparingByValue())
				.map(Map.Entry::getKey)
				.orElse(null);
			Snapshot followers = new Snapshot(0, 0, 0, 0, 0);
			Snapshot leading = null;
			int followerCount = 0;
			for (MembershipNode n : nodes) {
				Snapshot s = counts.get(n).snapshot().minus(before.get(n));
				if (n == leader) {
					leading = s;
				}
				else if (!ledSamples.containsKey(n)) {
					followers = plus(followers, s);
					followerCount++;
				}
			}
			this.log.printf("  counted %.1f intervals: %d commands %s (%d failed), %d outside any store call; led: %s; "
					+ "CPU %.2f of %d cores%n", intervals, cluster.commands(), names, cluster.failures(),
					stray.commands(), leaders(ledSamples, samples), cpu, Runtime.getRuntime().availableProcessors());

			String joinCell = "-";
			String crashCell = "-";
			if (converged) {
				List<MembershipNode> running = new ArrayList<>(nodes);
				joinCell = joins(config, client, runtimes, running, started);
				crashCell = crashes(config, running);
			}

			Stats find = new Stats(finds);
			double perInterval = 1 / intervals;
			double followerDiv = Math.max(1, followerCount) * intervals;
			table.row(size, config.timings(), convergence,
					Table.num(followers.calls() / followerDiv, 2) + " / "
							+ ((leading != null) ? Table.num(leading.calls() * perInterval, 2) : "-"),
					Table.num(cluster.commands() * perInterval / size, 2),
					Table.num(followers.documents() / followerDiv, 1) + " / "
							+ ((leading != null) ? Table.num(leading.documents() * perInterval, 1) : "-"),
					count(cluster.documents() * perInterval) + " (= "
							+ Table.num(cluster.documents() * perInterval / size, 1) + " x N)",
					Table.num(cluster.bytes() * perInterval / (1024.0 * 1024.0), 2),
					Table.num(find.median(), 2) + " / " + Table.num(find.percentile(99), 2), joinCell, crashCell,
					Table.num((heapAfter - heapBefore) / 1024.0 / size, 1),
					Table.num(cpu, 2) + " of " + Runtime.getRuntime().availableProcessors());
			return converged;
		}
	}

	/** Closed first of the resources of a size: every node started stops before the client and the server. */
	private interface Halt extends AutoCloseable {

		@Override
		void close();

	}

	/** Joins one after another: from start() until every running node lists the new one live. */
	private String joins(Config config, MongoClient client, SharedRuntimes runtimes, List<MembershipNode> running,
			List<MembershipNode> started) {
		List<Double> times = new ArrayList<>();
		int timedOut = 0;
		Duration bound = eventBound(config);
		for (int j = 0; j < this.settings.joins(); j++) {
			String id = "joiner-" + j;
			MembershipNode joiner = newNode(config, id, client, runtimes.runtime(new NodeCounts()));
			started.add(joiner);
			running.add(joiner);
			long t = System.nanoTime();
			joiner.start();
			boolean ok = untilEvery(running, (n) -> listsLive(n, id), bound, pollInterval(running.size(), 100));
			double ms = (System.nanoTime() - t) / 1e6;
			this.log.printf("  %s listed live everywhere%s after %.0f ms%n", id, ok ? "" : " NOT", ms);
			if (ok) {
				times.add(ms);
			}
			else {
				timedOut++;
			}
		}
		return cell(times, timedOut, bound);
	}

	/** Crashes one after another: from halt() of a non-leader until no running node lists it live. */
	private String crashes(Config config, List<MembershipNode> running) {
		List<Double> times = new ArrayList<>();
		int timedOut = 0;
		Duration bound = eventBound(config);
		for (int c = 0; c < this.settings.crashes(); c++) {
			MembershipNode victim = null;
			for (int i = running.size() / 2; i < running.size() + running.size() / 2; i++) {
				MembershipNode n = running.get(i % running.size());
				if (!n.isLeader(GROUP)) {
					victim = n;
					break;
				}
			}
			if (victim == null) {
				break;
			}
			running.remove(victim);
			String id = victim.nodeId();
			long t = System.nanoTime();
			victim.halt();
			boolean ok = untilEvery(running, (n) -> !listsLive(n, id), bound, pollInterval(running.size(), 100));
			double ms = (System.nanoTime() - t) / 1e6;
			this.log.printf("  %s (crashed) unlisted everywhere%s after %.0f ms%n", id, ok ? "" : " NOT", ms);
			if (ok) {
				times.add(ms);
			}
			else {
				timedOut++;
			}
		}
		return cell(times, timedOut, bound);
	}

}
