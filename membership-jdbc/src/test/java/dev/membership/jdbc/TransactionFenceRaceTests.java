package dev.membership.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

import dev.membership.leadership.FencedOutException;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Take-overs racing fenced multi-statement transactions on a real PostgreSQL server, for
 * five seconds in the build ({@code -Dmembership.jdbc.fence-race=PT60S} for a minute).
 * Clients take a lease of 20 to 80 ms whenever it is free and keep running transactions
 * under the last epoch they took, whether or not they still hold it (a leader that does
 * not know it was paused), each of two inserts with a pause between them, now and then
 * past the take-over's wait. Then, by the server's commit timestamps: no fenced
 * transaction committed after a newer term of its lease began, and every committed one
 * wrote both its rows.
 */
class TransactionFenceRaceTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final int CLIENTS = 4;

	private static final JdbcStoreSettings SETTINGS = new JdbcStoreSettings("fr_", Duration.ofMillis(400), true);

	private final AtomicLong committed = new AtomicLong();

	private final AtomicLong fencedOut = new AtomicLong();

	private final AtomicLong failed = new AtomicLong();

	@Test
	void noFencedTransactionCommitsAfterANewerTermBegan() throws Exception {
		Duration race = Duration.parse(System.getProperty("membership.jdbc.fence-race", "PT5S"));
		new JdbcMembershipStore(postgres.dataSource(), SETTINGS).initialize();
		JdbcClient jdbc = JdbcClient.create(postgres.dataSource());
		jdbc.sql("CREATE TABLE race_ledger (id bigserial PRIMARY KEY, epoch bigint, node text, step int)").update();
		jdbc.sql("CREATE TABLE race_terms (epoch bigint)").update();
		jdbc.sql("CREATE FUNCTION race_term() RETURNS trigger LANGUAGE plpgsql AS "
				+ "$$ BEGIN INSERT INTO race_terms VALUES (NEW.epoch); RETURN NEW; END $$")
			.update();
		jdbc.sql("CREATE TRIGGER race_term AFTER INSERT OR UPDATE ON fr_terms FOR EACH ROW "
				+ "EXECUTE FUNCTION race_term()")
			.update();
		ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
		long deadline = System.nanoTime() + race.toNanos();
		List<Future<?>> clients = new ArrayList<>();
		for (int i = 0; i < CLIENTS; i++) {
			String node = "n" + i;
			clients.add(pool.submit(() -> client(node, deadline)));
		}
		for (Future<?> client : clients) {
			client.get(race.toSeconds() + 60, TimeUnit.SECONDS);
		}
		pool.shutdown();
		long terms = jdbc.sql("SELECT count(*) FROM race_terms").query(Long.class).single();
		long late = jdbc
			.sql("SELECT count(*) FROM race_ledger g JOIN race_terms t ON t.epoch > g.epoch "
					+ "WHERE pg_xact_commit_timestamp(g.xmin) >= pg_xact_commit_timestamp(t.xmin)")
			.query(Long.class)
			.single();
		long halves = jdbc
			.sql("SELECT count(*) FROM (SELECT g.xmin::text FROM race_ledger g GROUP BY g.xmin::text "
					+ "HAVING count(*) <> 2) h")
			.query(Long.class)
			.single();
		long stamped = jdbc.sql("SELECT count(*) FROM race_ledger WHERE pg_xact_commit_timestamp(xmin) IS NULL")
			.query(Long.class)
			.single();
		System.out.printf(
				"PostgreSQL transaction fence race: %d clients, %d s, %,d terms, %,d fenced transactions "
						+ "committed, %,d fenced out, %,d ended or failed; committed after a newer term began: %d%n",
				CLIENTS, race.toSeconds(), terms, this.committed.get(), this.fencedOut.get(), this.failed.get(), late);
		assertThat(stamped).as("every committed row has its commit timestamp").isZero();
		assertThat(late).as("fenced transactions committed after a newer term began").isZero();
		assertThat(halves).as("committed transactions without both their rows").isZero();
		assertThat(terms).isGreaterThan(10);
		assertThat(this.committed.get()).isGreaterThan(20);
		assertThat(this.fencedOut.get()).as("stale transactions fenced out").isPositive();
	}

	private void client(String node, long deadline) {
		Holder holder = new Holder(node, node + "-1", null);
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long epoch = 0;
		Connection work = null;
		try (Connection leases = postgres.dataSource().getConnection()) {
			JdbcMembershipStore store = new JdbcMembershipStore(new SingleConnectionDataSource(leases, true), SETTINGS);
			while (System.nanoTime() < deadline) {
				Instant now = store.serverTime().orElseThrow();
				try {
					LeaseRecord taken = store.tryAcquire("ledger", holder, now, now.plusMillis(20 + random.nextInt(60)))
						.orElse(null);
					epoch = (taken != null) ? taken.epoch() : epoch;
				}
				catch (RuntimeException ex) {
					// a take-over that waited for a lock: tried again
				}
				if (epoch == 0) {
					continue;
				}
				if (work == null || work.isClosed() || !work.isValid(1)) {
					close(work);
					work = postgres.dataSource().getConnection();
				}
				transaction(work, node, epoch, random);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			close(work);
		}
	}

	private void transaction(Connection connection, String node, long epoch, ThreadLocalRandom random) {
		SingleConnectionDataSource dataSource = new SingleConnectionDataSource(connection, true);
		TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		JdbcClient jdbc = JdbcClient.create(dataSource);
		JdbcEpochFence fence = JdbcEpochFence.of("ledger", epoch).tablePrefix("fr_");
		try {
			tx.executeWithoutResult((status) -> {
				fence.joinTransaction(dataSource);
				insert(jdbc, epoch, node, 1);
				// mostly short, now and then past the take-over's wait (100 ms): a paused
				// leader
				long pause = (random.nextInt(20) == 0) ? 150 : random.nextInt(15);
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(pause));
				insert(jdbc, epoch, node, 2);
			});
			this.committed.incrementAndGet();
		}
		catch (FencedOutException ex) {
			this.fencedOut.incrementAndGet();
		}
		catch (DataAccessException | TransactionException ex) {
			// ended by a take-over, or a serialization failure
			this.failed.incrementAndGet();
		}
	}

	private static void insert(JdbcClient jdbc, long epoch, String node, int step) {
		jdbc.sql("INSERT INTO race_ledger (epoch, node, step) VALUES (?, ?, ?)").params(epoch, node, step).update();
	}

	private static void close(Connection connection) {
		try {
			if (connection != null) {
				connection.close();
			}
		}
		catch (SQLException ex) {
			// a connection a take-over ended
		}
	}

}
