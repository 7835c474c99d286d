package dev.membership.bench.load;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.IntConsumer;

import com.mongodb.client.MongoClient;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;

import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.CommandCounter;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.SecondJobs;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;

/**
 * Database load: N nodes, each with J leader-only jobs firing every second, for a fixed
 * window; the MongoDB commands each node's client sends. Ours: nodes with the starter's
 * default timings (renew every 5 s, lease 15 s), jobs guarded in memory. ShedLock: every
 * node runs every job through {@code LockingTaskExecutor} (what {@code @SchedulerLock}
 * does) with the MongoDB provider. Every configuration has servers of its own, and all
 * run side by side in the window.
 */
public final class DatabaseLoadScenario {

	public record Settings(List<Integer> nodeCounts, List<Integer> jobCounts, Duration warmUp, Duration window,
			Function<String, MembershipSettings> ours) {
	}

	private final Settings settings;

	private final PrintStream log;

	public DatabaseLoadScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		List<Setup> setups = new ArrayList<>();
		try {
			for (int nodes : this.settings.nodeCounts()) {
				for (int jobs : this.settings.jobCounts()) {
					setups.add(new Setup(nodes, jobs, this.settings));
				}
			}
			this.log.printf("  %d configurations started; warming up %s%n", setups.size(), this.settings.warmUp());
			Waits.pause(this.settings.warmUp());
			setups.forEach(Setup::reset);
			this.log.printf("  counting for %s%n", this.settings.window());
			Waits.pause(this.settings.window());
			setups.forEach(Setup::snapshot);
		}
		finally {
			setups.forEach(Setup::close);
		}
		double minutes = this.settings.window().toMillis() / 60_000.0;
		MembershipSettings ours = this.settings.ours().apply("any");
		double intervals = this.settings.window().toMillis() / (double) ours.renewalInterval().toMillis();
		Table table = new Table(
				"Database load (driver commands; window " + this.settings.window().toSeconds()
						+ " s, jobs fire every second)",
				"nodes", "jobs/node", "ours cmds/node/min", "ours max per node per renewal", "ShedLock cmds/node/min",
				"ShedLock / ours", "job runs/s ours", "job runs/s ShedLock");
		Map<String, Long> oursByName = new TreeMap<>();
		Map<String, Long> shedByName = new TreeMap<>();
		for (Setup s : setups) {
			double oursPerNodeMinute = s.oursTotal / (double) s.nodes / minutes;
			double shedPerNodeMinute = s.shedTotal / (double) s.nodes / minutes;
			table.row(s.nodes, s.jobs, Table.num(oursPerNodeMinute, 1), Table.num(s.oursMaxNode / intervals, 2),
					Table.num(shedPerNodeMinute, 1), Table.num(shedPerNodeMinute / oursPerNodeMinute, 1) + "x",
					Table.num(s.oursRuns / (double) this.settings.window().toSeconds(), 2),
					Table.num(s.shedRuns / (double) this.settings.window().toSeconds(), 2));
			s.oursByName.forEach((k, v) -> oursByName.merge(k, v, Long::sum));
			s.shedByName.forEach((k, v) -> shedByName.merge(k, v, Long::sum));
		}
		table.note("Ours: renew every " + ours.renewalInterval().toMillis() + " ms, lease "
				+ ours.leaseDuration().toMillis() + " ms; \"max per node per renewal\" is the busiest node (the "
				+ "leader) over the " + Table.num(intervals, 0) + " renewal intervals of the window. ShedLock: "
				+ "lockAtMostFor 30 s, lockAtLeastFor 500 ms (without it, a node whose clock or schedule is a few ms "
				+ "behind runs the same second's job again). Jobs fire on whole wall-clock seconds, as a cron "
				+ "schedule does, with 0-20 ms of jitter per node. \"Job runs/s\" counts executions across the "
				+ "cluster; J is right.");
		table.note("Commands by name over all configurations: ours " + oursByName + "; ShedLock " + shedByName + ".");
		return table;
	}

	/**
	 * One configuration: N of our nodes and N ShedLock nodes, J jobs each, on servers of
	 * their own.
	 */
	private static final class Setup {

		final int nodes;

		final int jobs;

		final EmbeddedMongoServer oursServer = new EmbeddedMongoServer();

		final EmbeddedMongoServer shedServer = new EmbeddedMongoServer();

		final List<CommandCounter> oursCounters = new ArrayList<>();

		final List<CommandCounter> shedCounters = new ArrayList<>();

		final List<MongoClient> clients = new ArrayList<>();

		final List<BenchNode> oursNodes = new ArrayList<>();

		final List<ScheduledExecutorService> schedulers = new ArrayList<>();

		final LongAdder oursRunCount = new LongAdder();

		final LongAdder shedRunCount = new LongAdder();

		long oursTotal;

		long oursMaxNode;

		long shedTotal;

		long oursRuns;

		long shedRuns;

		Map<String, Long> oursByName = new TreeMap<>();

		Map<String, Long> shedByName = new TreeMap<>();

		Setup(int nodes, int jobs, Settings settings) {
			this.nodes = nodes;
			this.jobs = jobs;
			for (int n = 0; n < nodes; n++) {
				CommandCounter oursCounter = new CommandCounter();
				MongoClient oursClient = this.oursServer.newClient(oursCounter);
				BenchNode node = BenchNode.start(settings.ours().apply("node-" + n), oursClient.getDatabase("bench"),
						LeadershipObserver.none(), null);
				this.oursNodes.add(node);
				this.oursCounters.add(oursCounter);
				this.clients.add(oursClient);
				schedule((job) -> node.node().runIfLeader("default", () -> this.oursRunCount.increment()));

				CommandCounter shedCounter = new CommandCounter();
				MongoClient shedClient = this.shedServer.newClient(shedCounter);
				LockingTaskExecutor executor = new DefaultLockingTaskExecutor(
						new MongoLockProvider(shedClient.getDatabase("bench")));
				this.shedCounters.add(shedCounter);
				this.clients.add(shedClient);
				schedule((job) -> executor.executeWithLock((Runnable) this.shedRunCount::increment,
						new LockConfiguration(Instant.now(), "job-" + job, Duration.ofSeconds(30),
								Duration.ofMillis(500))));
			}
		}

		/**
		 * J jobs on one node, each on every whole second as a cron schedule fires, give
		 * or take this node's jitter.
		 */
		private void schedule(IntConsumer job) {
			this.schedulers.add(SecondJobs.schedule(this.jobs, job));
		}

		void reset() {
			this.oursCounters.forEach(CommandCounter::reset);
			this.shedCounters.forEach(CommandCounter::reset);
			this.oursRunCount.reset();
			this.shedRunCount.reset();
		}

		void snapshot() {
			this.oursRuns = this.oursRunCount.sum();
			this.shedRuns = this.shedRunCount.sum();
			for (CommandCounter c : this.oursCounters) {
				this.oursTotal += c.total();
				this.oursMaxNode = Math.max(this.oursMaxNode, c.total());
				c.byName().forEach((k, v) -> this.oursByName.merge(k, v, Long::sum));
			}
			for (CommandCounter c : this.shedCounters) {
				this.shedTotal += c.total();
				c.byName().forEach((k, v) -> this.shedByName.merge(k, v, Long::sum));
			}
		}

		void close() {
			this.schedulers.forEach(ScheduledExecutorService::shutdownNow);
			this.oursNodes.forEach(BenchNode::close);
			this.clients.forEach(MongoClient::close);
			this.oursServer.close();
			this.shedServer.close();
		}

	}

}
