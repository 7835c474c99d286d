package dev.membership.bench.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import com.mongodb.client.MongoClient;

import dev.membership.bench.scale.StoreMeter.NodeCounts;
import dev.membership.bench.scale.StoreMeter.Snapshot;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.SharedRuntimes;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.spi.MembershipSettings;

import static dev.membership.bench.scale.ScaleProbes.allListAllLive;
import static dev.membership.bench.scale.ScaleProbes.count;
import static dev.membership.bench.scale.ScaleProbes.leaderOf;
import static dev.membership.bench.scale.ScaleProbes.leaders;
import static dev.membership.bench.scale.ScaleProbes.liveRange;
import static dev.membership.bench.scale.ScaleProbes.newNode;
import static dev.membership.bench.scale.ScaleProbes.plus;
import static dev.membership.bench.scale.ScaleProbes.pollInterval;
import static dev.membership.bench.scale.ScaleProbes.processCpuNanos;
import static dev.membership.bench.scale.ScaleProbes.progress;
import static dev.membership.bench.scale.ScaleProbes.seconds;
import static dev.membership.bench.scale.ScaleProbes.usedHeapAfterGc;

/**
 * Scale: N plain-Java nodes in this JVM against one embedded server and one shared
 * client, on a few shared threads ({@link SharedRuntimes}). Per size: how long until
 * every node lists every node as live, the store load per node per renewal interval once
 * it has (store calls, commands, documents and bytes read, split into followers and the
 * leader), how long the {@code find} commands take, how long a new node takes to be
 * listed live everywhere and a crashed one to be listed live nowhere, and heap per node.
 * Measures through the node's public API and the driver's command events only, so it runs
 * unchanged whatever the store's methods are.
 */
public final class ScaleScenario {

	/** One size: N nodes with these timings. */
	public record Config(int nodes, Duration renewalInterval, Duration leaseDuration, Duration livenessWindow) {

		/**
		 * N nodes with the production defaults ({@code MembershipSettings.builder(id)} as
		 * it comes).
		 */
		public static Config defaults(int nodes) {
			MembershipSettings d = MembershipSettings.builder("defaults").build();
			return new Config(nodes, d.renewalInterval(), d.leaseDuration(), d.livenessWindow());
		}

		/**
		 * {@code N}: N nodes at the defaults; {@code N@R}: renew every R seconds, lease
		 * 3R, liveness window 2R.
		 */
		public static Config parse(String spec) {
			int at = spec.indexOf('@');
			if (at < 0) {
				return defaults(Integer.parseInt(spec));
			}
			Duration renew = Duration.ofMillis(Math.round(Double.parseDouble(spec.substring(at + 1)) * 1000));
			return of(Integer.parseInt(spec.substring(0, at)), renew, renew.multipliedBy(3), renew.multipliedBy(2));
		}

		public static Config of(int nodes, Duration renewalInterval, Duration leaseDuration, Duration livenessWindow) {
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
	 * @param configs the sizes, run in this order; once one does not converge, larger
	 * ones with the same timings are skipped
	 * @param countIntervals renewal intervals counted after convergence
	 * @param joins nodes started one after another once the cluster has converged
	 * @param crashes non-leaders halted one after another after the joins
	 * @param convergeBound how long the nodes may take to list each other, after the last
	 * one started
	 * @param startsPerSecond how fast the nodes are started (staggered, against a
	 * thundering herd)
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
		Table table = new Table(
				"Scale (one JVM, one embedded server, one shared client, " + this.settings.storeThreads() + " + "
						+ LIGHT_THREADS + " shared threads; counted over " + this.settings.countIntervals()
						+ " renewal intervals)",
				"nodes", "renew / lease / liveness", "all list all live after",
				"store calls/interval followers / leader", "commands/node/interval",
				"docs read/interval followers / leader", "cluster docs read/interval", "cluster MiB read/interval",
				"find p50 / p99 ms", "join listed everywhere median / max ms",
				"crash unlisted everywhere median / max ms", "heap/node KiB", "CPU during count, cores");
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
		table.note(ScaleNotes.note(this.settings, LIGHT_THREADS));
		return table;
	}

	/** One size; false when it did not converge. */
	private boolean runSize(Config config, Table table) {
		int size = config.nodes();
		StoreMeter meter = new StoreMeter();
		List<MembershipNode> nodes = new ArrayList<>();
		// the nodes and the joiners: halted before the client closes
		List<MembershipNode> started = new ArrayList<>();
		Map<MembershipNode, NodeCounts> counts = new HashMap<>();
		this.log.printf("  %d nodes (%s): starting%n", size, config.timings());
		try (EmbeddedMongoServer server = new EmbeddedMongoServer();
				MongoClient client = server.newClient(meter);
				SharedRuntimes runtimes = new SharedRuntimes(this.settings.storeThreads(), LIGHT_THREADS);
				Halt halt = () -> started.forEach(MembershipNode::halt)) {
			// connect before the heap baseline
			client.getDatabase("bench").listCollectionNames().first();
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
			long countEnd = countStart
					+ config.renewalInterval().multipliedBy(this.settings.countIntervals()).toNanos();
			// who leads, sampled every 100 ms: the leader is the node that led most
			// often, the followers never led
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
			this.log.printf(
					"  counted %.1f intervals: %d commands %s (%d failed), %d outside any store call; led: %s; "
							+ "CPU %.2f of %d cores%n",
					intervals, cluster.commands(), names, cluster.failures(), stray.commands(),
					leaders(ledSamples, samples), cpu, Runtime.getRuntime().availableProcessors());

			String joinCell = "-";
			String crashCell = "-";
			if (converged) {
				List<MembershipNode> running = new ArrayList<>(nodes);
				ScaleChurn churn = new ScaleChurn(this.log, this.settings.joins(), this.settings.crashes());
				joinCell = churn.joins(config, client, runtimes, running, started);
				crashCell = churn.crashes(config, running);
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

	/**
	 * Closed first of the resources of a size: every node started stops before the client
	 * and the server.
	 */
	private interface Halt extends AutoCloseable {

		@Override
		void close();

	}

}
