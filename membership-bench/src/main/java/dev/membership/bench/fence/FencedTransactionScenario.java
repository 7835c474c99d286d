package dev.membership.bench.fence;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.membership.bench.support.CountingDataSource;
import dev.membership.bench.support.EmbeddedPostgresServer;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.jdbc.JdbcEpochFence;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcStoreSettings;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

/**
 * What fencing a transaction costs on PostgreSQL, and what it does to the leader's
 * renewals, in one run on one real server: workers run the same transaction (2 ms of the
 * application's work, an account's update, an event's insert) unfenced, with our
 * transaction fence, with our row fence on the update, and with the naive fence that
 * holds the lease's own row {@code FOR SHARE}; the holder renews its lease every interval
 * on a pool of its own meanwhile (and in a phase without transactions). Phases alternate,
 * each variant in every round.
 */
public final class FencedTransactionScenario {

	public record Settings(Duration phase, int rounds, int workers, Duration renewalInterval, Duration work) {
	}

	private static final List<String> VARIANTS = List.of("no transactions", "unfenced",
			"transaction fence (joinTransaction)", "row fence (update of the account)",
			"naive: the lease row held FOR SHARE");

	private static final int ACCOUNTS = 1_000;

	private final Settings settings;

	private final PrintStream log;

	public FencedTransactionScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() throws Exception {
		try (EmbeddedPostgresServer server = new EmbeddedPostgresServer()) {
			DataSource storePool = CountingDataSource.pool(server.url(), 2);
			DataSource appPool = CountingDataSource.pool(server.url(), this.settings.workers());
			try {
				return measure(server.version(), storePool, appPool);
			}
			finally {
				CountingDataSource.close(storePool);
				CountingDataSource.close(appPool);
			}
		}
	}

	private Table measure(String version, DataSource storePool, DataSource appPool) throws Exception {
		JdbcMembershipStore store = new JdbcMembershipStore(storePool, JdbcStoreSettings.defaults());
		store.initialize();
		JdbcClient jdbc = JdbcClient.create(appPool);
		jdbc.sql("CREATE TABLE bench_accounts (id int PRIMARY KEY, balance bigint NOT NULL, fence bigint)").update();
		jdbc.sql("INSERT INTO bench_accounts SELECT i, 0, NULL FROM generate_series(1, " + ACCOUNTS + ") i").update();
		jdbc.sql("CREATE TABLE bench_events (id bigserial PRIMARY KEY, account int, amount bigint, epoch bigint)")
			.update();
		Holder holder = new Holder("leader", "leader-1", null);
		Instant now = store.serverTime().orElseThrow();
		LeaseRecord lease = store.tryAcquire("ledger", holder, now, now.plus(Duration.ofHours(1))).orElseThrow();
		Map<String, List<Double>> transactions = new java.util.HashMap<>();
		Map<String, List<Double>> renewals = new java.util.HashMap<>();
		VARIANTS.forEach((v) -> {
			transactions.put(v, Collections.synchronizedList(new ArrayList<>()));
			renewals.put(v, new ArrayList<>());
		});
		ExecutorService workers = Executors.newFixedThreadPool(this.settings.workers());
		try {
			for (int round = 0; round < this.settings.rounds(); round++) {
				for (String variant : VARIANTS) {
					this.log.printf("  round %d: %s%n", round + 1, variant);
					phase(variant, store, holder, lease, appPool, workers, transactions.get(variant),
							renewals.get(variant));
				}
			}
		}
		finally {
			workers.shutdownNow();
		}
		double seconds = this.settings.phase().toMillis() / 1000.0 * this.settings.rounds();
		Table table = new Table(
				"Fenced transactions on PostgreSQL (" + version + "; " + this.settings.workers() + " workers, "
						+ this.settings.rounds() + " rounds of " + this.settings.phase().toSeconds()
						+ " s per variant; a renewal every " + this.settings.renewalInterval().toMillis() + " ms; "
						+ this.settings.work().toMillis() + " ms of work in each transaction)",
				"variant", "statements per transaction", "transactions/s", "transaction p50 ms", "transaction p99 ms",
				"renewals", "renewal p50 ms", "renewal p99 ms", "renewal max ms");
		for (String variant : VARIANTS) {
			Stats tx = new Stats(transactions.get(variant));
			Stats renew = new Stats(renewals.get(variant));
			boolean idle = tx.count() == 0;
			table.row(variant, idle ? "-" : statements(variant), idle ? "-" : Table.num(tx.count() / seconds, 0),
					idle ? "-" : Table.num(tx.median(), 3), idle ? "-" : Table.num(tx.percentile(99), 3), renew.count(),
					Table.num(renew.median(), 3), Table.num(renew.percentile(99), 3), Table.num(renew.max(), 3));
		}
		table.note("A transaction: the fence (if any), the application's work (a pause), UPDATE of one of " + ACCOUNTS
				+ " accounts, INSERT of an event, COMMIT (BEGIN rides the first statement). The transaction fence adds "
				+ "one statement (the term row FOR SHARE and a shared advisory lock); the row fence makes the update a "
				+ "CTE that also counts the rows its key selects; the naive fence adds one statement that locks the "
				+ "lease row, which every renewal updates.");
		return table;
	}

	private void phase(String variant, JdbcMembershipStore store, Holder holder, LeaseRecord lease, DataSource appPool,
			ExecutorService workers, List<Double> transactions, List<Double> renewals) throws Exception {
		long end = System.nanoTime() + this.settings.phase().toNanos();
		List<Future<?>> running = new ArrayList<>();
		if (!variant.equals("no transactions")) {
			for (int i = 0; i < this.settings.workers(); i++) {
				running.add(workers
					.submit(() -> work(variant, appPool, lease.epoch(), end, this.settings.work(), transactions)));
			}
		}
		long interval = this.settings.renewalInterval().toNanos();
		for (long next = System.nanoTime(); next < end; next += interval) {
			long wait = next - System.nanoTime();
			if (wait > 0) {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
			long started = System.nanoTime();
			store.renew("ledger", holder, lease.epoch(), lease.expiresAt(), null).orElseThrow();
			renewals.add((System.nanoTime() - started) / 1e6);
		}
		for (Future<?> worker : running) {
			worker.get(this.settings.phase().toSeconds() + 30, TimeUnit.SECONDS);
		}
	}

	private static void work(String variant, DataSource pool, long epoch, long end, Duration work,
			List<Double> latencies) {
		TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(pool));
		JdbcClient jdbc = JdbcClient.create(pool);
		JdbcEpochFence fence = JdbcEpochFence.of("ledger", epoch);
		ThreadLocalRandom random = ThreadLocalRandom.current();
		while (System.nanoTime() < end) {
			int account = 1 + random.nextInt(ACCOUNTS);
			long started = System.nanoTime();
			tx.executeWithoutResult((status) -> {
				switch (variant) {
					case "transaction fence (joinTransaction)" -> fence.joinTransaction(pool);
					case "naive: the lease row held FOR SHARE" ->
						jdbc.sql("SELECT epoch FROM membership_leases WHERE name = 'ledger' AND epoch = ? FOR SHARE")
							.param(epoch)
							.query(Long.class)
							.single();
					default -> {
					}
				}
				if (!work.isZero()) {
					// the application's own work
					java.util.concurrent.locks.LockSupport.parkNanos(work.toNanos());
				}
				if (variant.startsWith("row fence")) {
					fence.update(jdbc, "bench_accounts", Map.of("balance", 1L), Map.of("id", account)).orThrow(fence);
				}
				else {
					jdbc.sql("UPDATE bench_accounts SET balance = balance + 1 WHERE id = ?").param(account).update();
				}
				jdbc.sql("INSERT INTO bench_events (account, amount, epoch) VALUES (?, 1, ?)")
					.params(account, epoch)
					.update();
			});
			latencies.add((System.nanoTime() - started) / 1e6);
		}
	}

	private static String statements(String variant) {
		return switch (variant) {
			case "unfenced" -> "2 + commit";
			case "row fence (update of the account)" -> "2 + commit (the update a CTE)";
			default -> "3 + commit";
		};
	}

}
