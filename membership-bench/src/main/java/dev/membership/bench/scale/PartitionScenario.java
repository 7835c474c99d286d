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

import dev.membership.bench.scale.StoreMeter.NodeCounts;
import dev.membership.bench.scale.StoreMeter.Snapshot;
import dev.membership.bench.support.BeliefIntervals;
import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.SharedRuntimes;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.spi.MembershipSettings;

import static dev.membership.bench.scale.PartitionProbes.handOffCell;
import static dev.membership.bench.scale.PartitionProbes.moved;
import static dev.membership.bench.scale.PartitionProbes.notKeeper;
import static dev.membership.bench.scale.PartitionProbes.owners;
import static dev.membership.bench.scale.PartitionProbes.spread;

/**
 * Partitions: N plain-Java nodes in this JVM, each declaring group {@code t} with P
 * partitions, against one embedded server. Per case: time until the partitions are placed
 * and owned, balanced (max − min ≤ 1); store calls and documents read per node per
 * renewal interval in steady state (followers, and the roster's keeper); then a join, a
 * graceful leave and a crash of a node that does not keep the roster, each with the time
 * until balanced again and the partitions that changed owner against the fewest that
 * could. Ownership is sampled every 50 ms throughout: a partition owned by two nodes in
 * one sample is counted as a double owner.
 */
public final class PartitionScenario {

	/** The most nodes a rolling restart restarts. */
	static final int ROLLING_AT_MOST = 10;

	/** Joins per case, each at another phase of the interval. */
	static final int JOINS = 4;

	/** N nodes, P partitions. */
	public record Case(int nodes, int partitions) {

		public static Case parse(String spec) {
			String[] parts = spec.split("x");
			return new Case(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
		}

	}

	/**
	 * @param cases run in this order
	 * @param renewalInterval the timings: lease 3 and liveness window 2 renewal intervals
	 * (the defaults: 5 s)
	 * @param countIntervals renewal intervals counted in steady state
	 * @param bound how long any step may take
	 * @param storeThreads threads shared by every node's loop
	 * @param notices whether the nodes tell each other of released leases at once (in
	 * this JVM, as LeadershipNotices does over HTTP in a web application), or learn them
	 * from their reads only (plain Java without broadcast)
	 * @param restartGrace the nodes' restart grace; with one, the rolling restart
	 * restarts each node under its own id
	 */
	public record Settings(List<Case> cases, Duration renewalInterval, int countIntervals, Duration bound,
			int storeThreads, boolean notices, Duration restartGrace) {
	}

	private static final String GROUP = "t";

	private final Settings settings;

	private final PrintStream log;

	private PartitionWork work;

	private final AtomicInteger doubleOwners = new AtomicInteger();

	private final BeliefIntervals beliefs = new BeliefIntervals();

	/**
	 * Graceful hand-offs of the current case, per partition, in ms: see
	 * {@link BeliefIntervals#handOffMillis}.
	 */
	private final List<Double> handOffs = new ArrayList<>();

	/** The notices between the running nodes. */
	private final InJvmNotices notices;

	public PartitionScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
		this.notices = new InJvmNotices(settings.notices());
	}

	public Table run() {
		Duration r = this.settings.renewalInterval();
		Table table = new Table(
				"Partitions (one JVM, one embedded server; notices "
						+ (this.settings.notices() ? "in-JVM" : "none, reads only") + "; renew / lease / liveness "
						+ r.toMillis() / 1000.0 + " / " + r.multipliedBy(3).toMillis() / 1000.0 + " / "
						+ r.multipliedBy(2).toMillis() / 1000.0 + " s)",
				"N", "P", "placed and balanced after",
				"store calls/node/interval followers mean / max; keeper (of them history writes, max)",
				"docs read/interval cluster (3N + P)",
				"joins at " + JOINS + " phases: balanced after; moved by the last (min)",
				"graceful leave: balanced after; moved (leaver's)", "crash: balanced after; moved (crashed one's)",
				"max - min", "overlapping beliefs (samples with two owners)",
				"graceful hand-off per partition: median / p90 / max (partitions)",
				"rolling restart of every node (at most " + ROLLING_AT_MOST + "): time; moves"
						+ (this.settings.restartGrace().isZero() ? "" : " (each under its own id, restart grace "
								+ this.settings.restartGrace().toSeconds() + " s)"));
		for (Case c : this.settings.cases()) {
			runCase(c, table);
		}
		table.note(PartitionProbes.note(ROLLING_AT_MOST));
		return table;
	}

	private void runCase(Case c, Table table) {
		this.doubleOwners.set(0);
		this.beliefs.clear();
		this.handOffs.clear();
		this.notices.clear();
		this.log.printf("  %d nodes x %d partitions: starting%n", c.nodes(), c.partitions());
		StoreMeter meter = new StoreMeter();
		List<MembershipNode> running = new ArrayList<>();
		Map<MembershipNode, NodeCounts> counts = new HashMap<>();
		try (EmbeddedMongoServer server = new EmbeddedMongoServer();
				MongoClient client = server.newClient(meter);
				SharedRuntimes runtimes = new SharedRuntimes(this.settings.storeThreads(), 4);
				PartitionWork work = new PartitionWork()) {
			this.work = work;
			long start = System.nanoTime();
			for (int i = 0; i < c.nodes(); i++) {
				start(c, "node-" + i, client, runtimes, running, counts);
				if (i % 20 == 19) {
					Waits.pause(Duration.ofMillis(100));
				}
			}
			String placed = untilBalanced(c, running, start);
			Map<Integer, String> owners = owners(running, GROUP, this.doubleOwners);
			// steady state
			Map<MembershipNode, Snapshot> before = new HashMap<>();
			Map<MembershipNode, Long> writesBefore = new HashMap<>();
			running.forEach((n) -> before.put(n, counts.get(n).snapshot()));
			running.forEach((n) -> writesBefore.put(n, work.writes(n.nodeId())));
			Snapshot clusterBefore = meter.cluster().snapshot();
			long countStart = System.nanoTime();
			Waits.pause(this.settings.renewalInterval().multipliedBy(this.settings.countIntervals()));
			double intervals = (System.nanoTime() - countStart) / (double) this.settings.renewalInterval().toNanos();
			MembershipNode keeper = running.stream().filter((n) -> n.isLeader("default")).findFirst().orElse(null);
			double sum = 0;
			double max = 0;
			int followers = 0;
			double keeperCalls = 0;
			double historyMax = 0;
			for (MembershipNode n : running) {
				double calls = (counts.get(n).snapshot().calls() - before.get(n).calls()) / intervals;
				historyMax = Math.max(historyMax, (work.writes(n.nodeId()) - writesBefore.get(n)) / intervals);
				if (n == keeper) {
					keeperCalls = calls;
				}
				else {
					sum += calls;
					max = Math.max(max, calls);
					followers++;
				}
			}
			double docs = (meter.cluster().snapshot().documents() - clusterBefore.documents()) / intervals;
			String load = String.format(Locale.ROOT, "%.2f / %.2f; %.2f (history <= %.2f)",
					sum / Math.max(1, followers), max, keeperCalls, historyMax);
			String read = String.format(Locale.ROOT, "%.0f (%d)", docs, 3 * c.nodes() + c.partitions());
			this.log.printf("  placed and balanced after %s; calls %s; docs %s%n", placed, load, read);

			// joins at several phases of the interval (with a restart grace a joiner that
			// leaves is waited for: the joins are measured without one)
			String join = !this.settings.restartGrace().isZero() ? "-"
					: new PartitionJoins(this.log, this.settings.renewalInterval(), JOINS).run(
							(id) -> start(c, id, client, runtimes, running, counts),
							(since) -> secondsUntilBalanced(c, running, since), (joiner) -> {
								joiner.stopAsync(Duration.ofSeconds(5));
								running.remove(joiner);
								this.notices.remove(joiner.nodeId());
							}, () -> owners(running, GROUP, this.doubleOwners)) + " ("
							+ c.partitions() / (c.nodes() + 1) + ")";
			this.log.printf("  join: %s%n", join);

			// a graceful leave, then a crash, of nodes that do not keep the roster
			owners = owners(running, GROUP, this.doubleOwners);
			MembershipNode leaver = notKeeper(running);
			int leaversOwn = leaver.partitions(GROUP).owned().size();
			long leaveStart = System.nanoTime();
			leaver.stopAsync(Duration.ofSeconds(5));
			running.remove(leaver);
			// told nothing more; its own releases still reach the others
			this.notices.remove(leaver.nodeId());
			String leave = untilBalanced(c, running, leaveStart) + "; "
					+ moved(owners, owners(running, GROUP, this.doubleOwners)) + " (" + leaversOwn + ")";
			this.handOffs.addAll(this.beliefs.handOffMillis(leaver.nodeId(), leaveStart));
			this.log.printf("  graceful leave: %s%n", leave);

			owners = owners(running, GROUP, this.doubleOwners);
			MembershipNode crashed = notKeeper(running);
			int crashedOwn = crashed.partitions(GROUP).owned().size();
			long crashStart = System.nanoTime();
			crashed.halt();
			this.beliefs.halted(crashed.nodeId(), System.nanoTime());
			running.remove(crashed);
			this.notices.remove(crashed.nodeId());
			String crash = untilBalanced(c, running, crashStart) + "; "
					+ moved(owners, owners(running, GROUP, this.doubleOwners)) + " (" + crashedOwn + ")";
			this.log.printf("  crash: %s%n", crash);
			String rolling = rollingRestart(c, client, runtimes, running, counts);
			this.log.printf("  rolling restart: %s%n", rolling);
			String handOffs = handOffCell(this.handOffs);
			this.log.printf("  graceful hand-off per partition: %s%n", handOffs);
			table.row(c.nodes(), c.partitions(), placed, load, read, join, leave, crash, spread(running, GROUP),
					this.beliefs.overlaps() + " (" + this.doubleOwners.get() + ")", handOffs, rolling);
			running.forEach(MembershipNode::halt);
		}
	}

	/**
	 * Every node in turn, the keeper last: a graceful stop, a new node in its place,
	 * balanced again before the next. Returns the whole time and the partitions that
	 * changed owner on the way.
	 */
	private String rollingRestart(Case c, MongoClient client, SharedRuntimes runtimes, List<MembershipNode> running,
			Map<MembershipNode, NodeCounts> counts) {
		List<MembershipNode> order = new ArrayList<>(running);
		order.sort((a, b) -> Boolean.compare(a.isLeader("default"), b.isLeader("default")));
		order = order.subList(Math.max(0, order.size() - ROLLING_AT_MOST), order.size());
		long start = System.nanoTime();
		long moves = 0;
		double unowned = 0;
		for (MembershipNode old : order) {
			Map<Integer, String> before = owners(running, GROUP, this.doubleOwners);
			long stopped = System.nanoTime();
			old.stopAsync(Duration.ofSeconds(5));
			running.remove(old);
			this.notices.remove(old.nodeId());
			boolean sameId = !this.settings.restartGrace().isZero();
			if (sameId) {
				// the process ends, then starts again under its id
				old.stopAsync(Duration.ofSeconds(5)).join();
			}
			start(c, sameId ? old.nodeId() : old.nodeId() + "r", client, runtimes, running, counts);
			if (untilBalanced(c, running, System.nanoTime()).startsWith("not")) {
				return "not balanced after restarting " + old.nodeId();
			}
			if (sameId) {
				List<Double> gaps = this.beliefs.unownedMillis(old.nodeId(), stopped);
				unowned = Math.max(unowned, gaps.stream().mapToDouble(Double::doubleValue).max().orElse(0));
			}
			else {
				this.handOffs.addAll(this.beliefs.handOffMillis(old.nodeId(), stopped));
			}
			moves += moved(before, owners(running, GROUP, this.doubleOwners));
		}
		String of = (order.size() < running.size()) ? " (" + order.size() + " of " + running.size() + " nodes)" : "";
		String longest = this.settings.restartGrace().isZero() ? ""
				: String.format(Locale.ROOT, "; a partition unowned %.2f s at most", unowned / 1000);
		return String.format(Locale.ROOT, "%.1f s; %d%s%s", (System.nanoTime() - start) / 1e9, moves, longest, of);
	}

	private MembershipNode start(Case c, String id, MongoClient client, SharedRuntimes runtimes,
			List<MembershipNode> running, Map<MembershipNode, NodeCounts> counts) {
		Duration r = this.settings.renewalInterval();
		MembershipSettings settings = PartitionProbes.settings(id, r, GROUP, c.partitions())
			.restartGrace(this.settings.restartGrace())
			.build();
		NodeCounts scope = new NodeCounts();
		MembershipNode node = MembershipNode
			.builder(settings, new MongoMembershipStore(client.getDatabase("bench"), BenchNode.storeSettings(settings)))
			.advertisedAddress("127.0.0.1")
			.runtime(runtimes.runtime(scope))
			.observer(this.beliefs)
			.noticeChannel(this.notices.channel(id))
			.runHistory(this.work.history(id, client.getDatabase("bench")), 1_000)
			.build();
		counts.put(node, scope);
		running.add(node);
		node.start();
		this.work.runOwned(node, GROUP, r.dividedBy(2));
		return node;
	}

	/**
	 * Polls every 50 ms until balanced; returns the time since {@code since}, or says it
	 * was not reached.
	 */
	private String untilBalanced(Case c, List<MembershipNode> running, long since) {
		double seconds = secondsUntilBalanced(c, running, since);
		return (seconds >= 0) ? String.format(Locale.ROOT, "%.2f s", seconds)
				: "not within " + this.settings.bound().toSeconds() + " s";
	}

	/**
	 * Polls every 50 ms until balanced; returns the seconds since {@code since}, or -1
	 * when not within the bound.
	 */
	private double secondsUntilBalanced(Case c, List<MembershipNode> running, long since) {
		return PartitionProbes.secondsUntilBalanced(running, GROUP, c.partitions(), this.settings.bound(), since,
				this.doubleOwners);
	}

}
