package dev.membership.bench.fires;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.mongodb.client.MongoClient;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;

import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.CommandCounter;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.leadership.FireMode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.scheduling.FireSchedules;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.ScheduledJob;

/**
 * Scheduled fires: N nodes, each with the same J jobs on one fixed rate, for a fixed
 * window, side by side on servers of their own. Ours: the leader fires each job once per
 * instant by the database's clock and records it in the lease, with the default
 * {@code RECORDED} (the record rides the renewal) and with {@code STRICT} (a renewal
 * before each run); and, for the baseline, the same nodes without jobs. ShedLock: every
 * node's scheduler fires every job at the same instants by its own clock, each run
 * through {@code LockingTaskExecutor} with the MongoDB provider. Counted: the MongoDB
 * commands per node, the fires of the window that ran (once, twice or not), and how late
 * each run began.
 */
public final class ScheduledFiresScenario {

	/**
	 * @param period the jobs' rate; @param ours each node's settings, by node id
	 */
	public record Settings(int nodes, int jobs, Duration period, Duration warmUp, Duration window,
			Function<String, MembershipSettings> ours) {
	}

	private final Settings settings;

	private final PrintStream log;

	public ScheduledFiresScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		List<Setup> setups = List.of(new Setup("ours, no scheduled jobs", null),
				new Setup("ours, RECORDED (default)", FireMode.RECORDED), new Setup("ours, STRICT", FireMode.STRICT),
				new Setup("ShedLock", null));
		try {
			setups.forEach(Setup::start);
			this.log.printf("  %d configurations started; warming up %s%n", setups.size(), this.settings.warmUp());
			Waits.pause(this.settings.warmUp());
			Instant from = Instant.now();
			setups.forEach(Setup::reset);
			this.log.printf("  counting for %s%n", this.settings.window());
			Waits.pause(this.settings.window());
			Instant to = Instant.now();
			setups.forEach((s) -> s.snapshot(from, to));
		}
		finally {
			setups.forEach(Setup::close);
		}
		MembershipSettings ours = this.settings.ours().apply("any");
		double minutes = this.settings.window().toMillis() / 60_000.0;
		double intervals = this.settings.window().toMillis() / (double) ours.renewalInterval().toMillis();
		Table table = new Table(
				"Scheduled fires (" + this.settings.nodes() + " nodes, " + this.settings.jobs() + " jobs every "
						+ this.settings.period().toSeconds() + " s; window " + this.settings.window().toSeconds()
						+ " s)",
				"configuration", "cmds/node/min", "leader's cmds per renewal", "fires due", "ran once",
				"ran twice or more", "not run", "late p50", "late p99");
		for (Setup s : setups) {
			table.row(s.name, Table.num(s.total / (double) this.settings.nodes() / minutes, 1),
					Table.num(s.busiest / intervals, 2), (s.shedLock || s.mode != null) ? s.due : "-",
					(s.shedLock || s.mode != null) ? s.once : "-", (s.shedLock || s.mode != null) ? s.twice : "-",
					(s.shedLock || s.mode != null) ? s.lost : "-",
					s.lateness.isEmpty() ? "-" : Table.ms(new Stats(s.lateness).median()),
					s.lateness.isEmpty() ? "-" : Table.ms(new Stats(s.lateness).percentile(99)));
		}
		table.note("Ours: renew every " + ours.renewalInterval().toMillis() + " ms, lease "
				+ ours.leaseDuration().toMillis() + " ms; the jobs fire at whole periods since 1970 by the database's "
				+ "clock; \"late\" is from the fire's instant to its run's start by the leader's estimate of that clock. "
				+ "ShedLock: each node fires at whole periods by its own clock, lockAtMostFor 30 s, lockAtLeastFor "
				+ "half a period; \"late\" by the node's own clock. \"Fires due\": the jobs' instants in the window but "
				+ "the last period (a run may still be on its way).");
		return table;
	}

	/** One configuration: N nodes on a server of its own. */
	private final class Setup {

		final String name;

		final FireMode mode;

		final boolean shedLock;

		final EmbeddedMongoServer server = new EmbeddedMongoServer();

		final List<CommandCounter> counters = new ArrayList<>();

		final List<MongoClient> clients = new ArrayList<>();

		final List<BenchNode> nodes = new ArrayList<>();

		final List<AutoCloseable> jobs = new ArrayList<>();

		final ExecutorService runners = Executors.newCachedThreadPool();

		final List<ScheduledExecutorService> schedulers = new ArrayList<>();

		/** Runs by job and fire instant, and how late each began. */
		final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		final List<Double> late = new CopyOnWriteArrayList<>();

		long total;

		long busiest;

		int due;

		int once;

		int twice;

		int lost;

		List<Double> lateness = List.of();

		Setup(String name, FireMode mode) {
			this.name = name;
			this.mode = mode;
			this.shedLock = name.startsWith("ShedLock");
		}

		void start() {
			Settings settings = ScheduledFiresScenario.this.settings;
			for (int n = 0; n < settings.nodes(); n++) {
				CommandCounter counter = new CommandCounter();
				MongoClient client = this.server.newClient(counter);
				this.counters.add(counter);
				this.clients.add(client);
				if (this.shedLock) {
					startShedLock(client);
					continue;
				}
				BenchNode node = BenchNode.start(settings.ours().apply("node-" + n), client.getDatabase("bench"),
						LeadershipObserver.none(), null);
				this.nodes.add(node);
				for (int j = 0; this.mode != null && j < settings.jobs(); j++) {
					String job = "bench#job" + j;
					MembershipNode member = node.node();
					FirePolicy policy = new FirePolicy(null, FirePolicy.DEFAULTS.missed(),
							FirePolicy.DEFAULTS.overlap(), this.mode);
					this.jobs.add(member.schedule(
							new ScheduledJob("default", job, FireSchedules.fixedRate(settings.period(), Duration.ZERO),
									policy, (fire) -> this.runners.execute(() -> {
										LeadershipTerm.Execution run = fire.tryBegin(false, Duration.ZERO);
										if (run != null) {
											Instant now = member.serverTimeEstimate().orElseThrow();
											ran(job, fire.instant(), Duration.between(fire.instant(), now));
											run.close();
										}
									}))));
				}
			}
		}

		private void startShedLock(MongoClient client) {
			Settings settings = ScheduledFiresScenario.this.settings;
			LockingTaskExecutor executor = new DefaultLockingTaskExecutor(
					new MongoLockProvider(client.getDatabase("bench")));
			long period = settings.period().toMillis();
			ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
			this.schedulers.add(scheduler);
			for (int j = 0; j < settings.jobs(); j++) {
				String job = "job-" + j;
				scheduler.scheduleAtFixedRate(() -> {
					long now = System.currentTimeMillis();
					Instant fire = Instant.ofEpochMilli(Math.round(now / (double) period) * period);
					executor.executeWithLock(
							(Runnable) () -> ran(job, fire,
									Duration.ofMillis(System.currentTimeMillis() - fire.toEpochMilli())),
							new LockConfiguration(Instant.now(), job, Duration.ofSeconds(30),
									settings.period().dividedBy(2)));
				}, period - System.currentTimeMillis() % period, period, TimeUnit.MILLISECONDS);
			}
		}

		void ran(String job, Instant fire, Duration lateness) {
			this.runs.computeIfAbsent(job + "@" + fire.toEpochMilli(), (k) -> new AtomicInteger()).incrementAndGet();
			this.late.add(lateness.toNanos() / 1e6);
		}

		void reset() {
			this.counters.forEach(CommandCounter::reset);
			this.late.clear();
		}

		void snapshot(Instant from, Instant to) {
			for (CommandCounter c : this.counters) {
				this.total += c.total();
				this.busiest = Math.max(this.busiest, c.total());
			}
			this.lateness = List.copyOf(this.late);
			Settings settings = ScheduledFiresScenario.this.settings;
			long period = settings.period().toMillis();
			for (long at = (from.toEpochMilli() / period + 1) * period; at <= to.toEpochMilli()
					- period; at += period) {
				for (int j = 0; j < settings.jobs(); j++) {
					AtomicInteger count = this.runs.get((this.shedLock ? "job-" : "bench#job") + j + "@" + at);
					int times = (count != null) ? count.get() : 0;
					this.due++;
					this.once += (times == 1) ? 1 : 0;
					this.twice += (times > 1) ? 1 : 0;
					this.lost += (times == 0) ? 1 : 0;
				}
			}
		}

		void close() {
			for (AutoCloseable job : this.jobs) {
				try {
					job.close();
				}
				catch (Exception ex) {
					// closing: nothing to do
				}
			}
			this.schedulers.forEach(ScheduledExecutorService::shutdownNow);
			this.runners.shutdownNow();
			this.nodes.forEach(BenchNode::close);
			this.clients.forEach(MongoClient::close);
			this.server.close();
		}

	}

}
