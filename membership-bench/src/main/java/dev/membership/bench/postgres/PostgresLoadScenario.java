package dev.membership.bench.postgres;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.LongAdder;

import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.membership.bench.support.CountingDataSource;
import dev.membership.bench.support.EmbeddedPostgresServer;
import dev.membership.bench.support.SecondJobs;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcStoreSettings;
import dev.membership.spi.MembershipSettings;

/**
 * Database load on PostgreSQL: N nodes per library, each with J jobs that fire every
 * second and a connection pool of its own, on one real server, all configurations side by
 * side; the statements each node executes (and the commits of its transactions, each a
 * round trip of its own). Ours: the JDBC store at the starter's timings, jobs guarded in
 * memory ({@code runIfLeader}). ShedLock: every job through {@code LockingTaskExecutor}
 * with the JDBC provider on the database's clock. Spring Integration:
 * {@code LockRegistryLeaderInitiator} on its JDBC lock registry (lock TTL our lease,
 * heartbeat a third of it), jobs run on the leader.
 */
public final class PostgresLoadScenario {

	public record Settings(int nodes, List<Integer> jobCounts, Duration warmUp, Duration window,
			Duration renewalInterval) {
	}

	private final Settings settings;

	private final PrintStream log;

	public PostgresLoadScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		List<Library> libraries = new ArrayList<>();
		Duration lease = this.settings.renewalInterval().multipliedBy(3);
		String version;
		try (EmbeddedPostgresServer server = new EmbeddedPostgresServer()) {
			version = server.version();
			try {
				for (int jobs : this.settings.jobCounts()) {
					libraries.add(new Ours(server.url(), jobs));
					libraries.add(new ShedLock(server.url(), jobs));
					libraries.add(new SpringIntegration(server.url(), jobs, lease));
				}
				this.log.printf("  %d configurations on %s; warming up %s%n", libraries.size(), version,
						this.settings.warmUp());
				Waits.pause(this.settings.warmUp());
				libraries.forEach(Library::reset);
				this.log.printf("  counting for %s%n", this.settings.window());
				Waits.pause(this.settings.window());
				libraries.forEach(Library::snapshot);
			}
			finally {
				libraries.forEach(Library::close);
			}
		}
		double minutes = this.settings.window().toMillis() / 60_000.0;
		double seconds = this.settings.window().toMillis() / 1000.0;
		Table table = new Table(
				"Database load on PostgreSQL (" + version + "; " + this.settings.nodes()
						+ " nodes per library, a pool each; window " + this.settings.window().toSeconds()
						+ " s, jobs fire every second)",
				"library", "jobs/node", "statements/node/min", "commits/node/min", "busiest node, statements/min",
				"job runs/s");
		for (Library l : libraries) {
			table.row(l.name, l.jobs, Table.num(l.statements / (double) this.settings.nodes() / minutes, 1),
					Table.num(l.commits / (double) this.settings.nodes() / minutes, 1),
					Table.num(l.busiest / minutes, 1), Table.num(l.runs.sum() / seconds, 2));
		}
		table.note("Ours: renew every " + this.settings.renewalInterval().toMillis() + " ms, lease " + lease.toMillis()
				+ " ms, no broadcast. ShedLock 7.10.1 (JdbcTemplateLockProvider, usingDbTime): "
				+ "lockAtMostFor 30 s, lockAtLeastFor 500 ms, as in the MongoDB load table. Spring Integration 7.0.5: "
				+ "lock TTL " + lease.toMillis() + " ms, heartbeat " + lease.dividedBy(3).toMillis() + " ms; its "
				+ "followers poll for the lock. Statements: every execute of a statement through the node's pool; "
				+ "commits: of its transactions (ours runs in autocommit; ShedLock and Spring Integration wrap their "
				+ "statements in transactions). \"Job runs/s\" counts " + "executions across the cluster; J is right.");
		return table;
	}

	/** N nodes of one library with J jobs each, their pools counted. */
	private abstract class Library {

		final String name;

		final int jobs;

		final List<CountingDataSource> counters = new ArrayList<>();

		final List<DataSource> pools = new ArrayList<>();

		final List<ScheduledExecutorService> schedulers = new ArrayList<>();

		final LongAdder runs = new LongAdder();

		long statements;

		long commits;

		long busiest;

		private final List<long[]> before = new ArrayList<>();

		Library(String name, int jobs) {
			this.name = name;
			this.jobs = jobs;
		}

		DataSource pool(String url) {
			DataSource pool = CountingDataSource.pool(url, 3);
			CountingDataSource counter = new CountingDataSource(pool);
			this.pools.add(pool);
			this.counters.add(counter);
			return counter.dataSource();
		}

		void reset() {
			this.before.clear();
			this.counters.forEach((c) -> this.before.add(new long[] { c.statements(), c.commits() }));
			this.runs.reset();
		}

		void snapshot() {
			for (int i = 0; i < this.counters.size(); i++) {
				long s = this.counters.get(i).statements() - this.before.get(i)[0];
				this.statements += s;
				this.commits += this.counters.get(i).commits() - this.before.get(i)[1];
				this.busiest = Math.max(this.busiest, s);
			}
		}

		void close() {
			this.schedulers.forEach(ScheduledExecutorService::shutdownNow);
			stop();
			this.pools.forEach(CountingDataSource::close);
		}

		abstract void stop();

	}

	private final class Ours extends Library {

		private final List<MembershipNode> nodes = new ArrayList<>();

		Ours(String url, int jobs) {
			super("membership (ours)", jobs);
			JdbcStoreSettings store = JdbcStoreSettings.defaults().withTablePrefix("load" + jobs + "_");
			Duration r = PostgresLoadScenario.this.settings.renewalInterval();
			for (int n = 0; n < PostgresLoadScenario.this.settings.nodes(); n++) {
				MembershipSettings settings = MembershipSettings.builder("node-" + n)
					.renewalInterval(r)
					.leaseDuration(r.multipliedBy(3))
					.livenessWindow(r.multipliedBy(2))
					.build();
				MembershipNode node = MembershipNode.builder(settings, new JdbcMembershipStore(pool(url), store))
					.advertisedAddress("127.0.0.1")
					.build();
				node.start();
				this.nodes.add(node);
				this.schedulers
					.add(SecondJobs.schedule(jobs, (job) -> node.runIfLeader("default", this.runs::increment)));
			}
		}

		@Override
		void stop() {
			this.nodes.forEach(MembershipNode::halt);
		}

	}

	private final class ShedLock extends Library {

		ShedLock(String url, int jobs) {
			super("ShedLock 7.10.1 JDBC", jobs);
			String table = "shedlock_" + jobs;
			for (int n = 0; n < PostgresLoadScenario.this.settings.nodes(); n++) {
				JdbcTemplate jdbc = new JdbcTemplate(pool(url));
				if (n == 0) {
					jdbc.execute("CREATE TABLE IF NOT EXISTS " + table + " (name VARCHAR(64) NOT NULL, lock_until "
							+ "TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
							+ "PRIMARY KEY (name))");
				}
				LockingTaskExecutor executor = new DefaultLockingTaskExecutor(
						new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
							.withJdbcTemplate(jdbc)
							.withTableName(table)
							.withLockedByValue("node-" + n)
							.usingDbTime()
							.build()));
				this.schedulers.add(
						SecondJobs.schedule(jobs,
								(job) -> executor.executeWithLock((Runnable) this.runs::increment,
										new LockConfiguration(Instant.now(), "job-" + job, Duration.ofSeconds(30),
												Duration.ofMillis(500)))));
			}
		}

		@Override
		void stop() {
		}

	}

	private final class SpringIntegration extends Library {

		private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

		private final List<DefaultLockRepository> repositories = new ArrayList<>();

		SpringIntegration(String url, int jobs, Duration lease) {
			super("Spring Integration 7.0.5 JDBC leader", jobs);
			for (int n = 0; n < PostgresLoadScenario.this.settings.nodes(); n++) {
				DataSource dataSource = pool(url);
				if (n == 0) {
					new JdbcTemplate(dataSource).execute(dev.membership.bench.failover.PostgresContenders.SI_DDL);
				}
				DefaultLockRepository repository = new DefaultLockRepository(dataSource, UUID.randomUUID().toString());
				repository.setRegion("load-" + jobs);
				repository.setTimeToLive((int) lease.toMillis());
				repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
				repository.afterPropertiesSet();
				repository.afterSingletonsInstantiated();
				repository.start();
				LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
						new JdbcLockRegistry(repository, lease), new DefaultCandidate("node-" + n, "bench"));
				initiator.setHeartBeatMillis(lease.dividedBy(3).toMillis());
				initiator.start();
				this.initiators.add(initiator);
				this.repositories.add(repository);
				this.schedulers.add(SecondJobs.schedule(jobs, (job) -> {
					if (initiator.getContext().isLeader()) {
						this.runs.increment();
					}
				}));
			}
		}

		@Override
		void stop() {
			this.initiators.forEach(LockRegistryLeaderInitiator::stop);
			this.repositories.forEach(DefaultLockRepository::stop);
		}

	}

}
