package dev.membership.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import dev.membership.leadership.FencedOutException;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The transaction fence on a real PostgreSQL server: commit order follows epoch order.
 */
class TransactionFenceTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final JdbcStoreSettings SETTINGS = new JdbcStoreSettings("tf_", Duration.ofSeconds(4), true);

	// a take-over waits a quarter of the operation timeout (1 s) before it ends an older
	// term's transactions

	private final Holder a = new Holder("a", "a-1", null);

	private final Holder b = new Holder("b", "b-1", null);

	private JdbcMembershipStore store;

	private JdbcClient jdbc;

	@BeforeEach
	void tables() {
		this.store = new JdbcMembershipStore(postgres.dataSource(), SETTINGS);
		this.store.initialize();
		this.jdbc = JdbcClient.create(postgres.dataSource());
		this.jdbc.sql("DROP TABLE IF EXISTS payouts").update();
		this.jdbc.sql("CREATE TABLE payouts (id bigint PRIMARY KEY, epoch bigint)").update();
		this.jdbc.sql("DELETE FROM tf_leases").update();
		this.jdbc.sql("DELETE FROM tf_terms").update();
	}

	@Test
	void aFencedTransactionCommitsUnderItsTermAndIsFencedOutOnceANewerOneBegan() {
		LeaseRecord first = take("payouts", this.a);
		assertThat(this.jdbc.sql("SELECT epoch FROM tf_terms WHERE name = 'payouts'").query(Long.class).single())
			.isEqualTo(first.epoch());
		Transactions tx = new Transactions(postgres.dataSource());
		tx.run(fence(first), 1);
		assertThat(payouts()).isEqualTo(1);
		LeaseRecord second = take("payouts", this.b);
		assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
		assertThatExceptionOfType(FencedOutException.class).isThrownBy(() -> tx.run(fence(first), 2))
			.withMessageContaining("epoch " + second.epoch() + ", not " + first.epoch())
			.satisfies((ex) -> assertThat(ex.newerEpoch()).hasValue(second.epoch()));
		assertThat(payouts()).as("the stale transaction rolled back").isEqualTo(1);
		tx.run(fence(second), 3);
		assertThat(payouts()).isEqualTo(2);
	}

	@Test
	void aTakeOverWaitsForTheOlderTermsOpenTransactionWhichCommitsFirst() throws Exception {
		LeaseRecord first = take("payouts", this.a);
		try (OpenTransaction stale = new OpenTransaction(first)) {
			CompletableFuture<LeaseRecord> takeOver = CompletableFuture.supplyAsync(() -> take("payouts", this.b));
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(this::aTakeOverWaitsForALock);
			assertThat(takeOver).as("the take-over waits for the fenced transaction").isNotDone();
			stale.commit().get(5, TimeUnit.SECONDS);
			assertThat(takeOver.get(5, TimeUnit.SECONDS).epoch()).isEqualTo(first.epoch() + 1);
			assertThat(this.jdbc
				.sql("SELECT pg_xact_commit_timestamp(p.xmin) < pg_xact_commit_timestamp(t.xmin) "
						+ "FROM payouts p, tf_terms t WHERE p.id = 1 AND t.name = 'payouts'")
				.query(Boolean.class)
				.single()).as("the older term's transaction committed before the newer term began").isTrue();
		}
	}

	@Test
	void aTakeOverEndsAnOlderTermsTransactionHeldOpenPastItsWait() throws Exception {
		LeaseRecord first = take("payouts", this.a);
		// a leader paused with its transaction open
		try (OpenTransaction stale = new OpenTransaction(first)) {
			LeaseRecord second = take("payouts", this.b);
			assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
			assertThat(stale.commit()).failsWithin(Duration.ofSeconds(5));
			assertThat(payouts()).as("the ended transaction never committed").isZero();
		}
	}

	@Test
	void aRenewalDoesNotWaitForAFencedTransaction() throws Exception {
		LeaseRecord first = take("payouts", this.a);
		try (OpenTransaction open = new OpenTransaction(first)) {
			Instant now = this.store.serverTime().orElseThrow();
			assertThat(this.store.renew("payouts", this.a, first.epoch(), now.plusSeconds(30), null)).isPresent();
			open.commit().get(5, TimeUnit.SECONDS);
			assertThat(payouts()).isEqualTo(1);
		}
	}

	@Test
	void aGroupsFenceIsNotItsPartitions() {
		LeaseRecord partition = take("tenants#3", this.a);
		JdbcEpochFence fence = JdbcEpochFence.of("tenants", partition.epoch()).tablePrefix("tf_");
		assertThat(fence.lease()).isEqualTo("tenants");
		Transactions tx = new Transactions(postgres.dataSource());
		assertThatExceptionOfType(FencedOutException.class).isThrownBy(() -> tx.run(fence, 1))
			.withMessageContaining("'tenants' has no term in tf_terms");
	}

	@Test
	void outsideATransactionTheFenceRefusesRatherThanProtectNothing() {
		LeaseRecord first = take("payouts", this.a);
		assertThatIllegalStateException().isThrownBy(() -> fence(first).joinTransaction(postgres.dataSource()))
			.withMessageContaining("needs a Spring transaction on this DataSource");
	}

	private JdbcEpochFence fence(LeaseRecord lease) {
		return JdbcEpochFence.of(lease.group(), lease.epoch()).tablePrefix("tf_");
	}

	private LeaseRecord take(String lease, Holder holder) {
		Instant now = this.store.serverTime().orElseThrow();
		this.jdbc.sql("UPDATE tf_leases SET expires_at = clock_timestamp() - interval '1 second' WHERE name = ?")
			.param(lease)
			.update();
		return this.store.tryAcquire(lease, holder, now, now.plusSeconds(30)).orElseThrow();
	}

	private boolean aTakeOverWaitsForALock() {
		return this.jdbc
			.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
					+ "AND query LIKE 'WITH t AS%'")
			.query(Long.class)
			.single() > 0;
	}

	private long payouts() {
		return this.jdbc.sql("SELECT count(*) FROM payouts").query(Long.class).single();
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * A fenced transaction of {@code term} that inserts payout 1, held open on a
	 * connection of its own (as a paused leader's would be) from its fence until
	 * {@link #commit()}.
	 */
	private final class OpenTransaction implements AutoCloseable {

		private final Connection connection;

		private final CountDownLatch commit = new CountDownLatch(1);

		private final CompletableFuture<Void> outcome;

		OpenTransaction(LeaseRecord term) throws Exception {
			this.connection = postgres.dataSource().getConnection();
			Transactions tx = new Transactions(new SingleConnectionDataSource(this.connection, true));
			CountDownLatch fenced = new CountDownLatch(1);
			this.outcome = CompletableFuture.runAsync(() -> tx.run(fence(term), 1, () -> {
				fenced.countDown();
				TransactionFenceTests.await(this.commit);
			}));
			assertThat(fenced.await(5, TimeUnit.SECONDS)).as("the transaction passed its fence").isTrue();
		}

		/** Lets the transaction go on to its insert and commit: its outcome. */
		CompletableFuture<Void> commit() {
			this.commit.countDown();
			return this.outcome;
		}

		@Override
		public void close() throws Exception {
			this.commit.countDown();
			this.connection.close();
		}

	}

	/** Fenced transactions on one data source, as an application runs them. */
	static final class Transactions {

		private final DataSource dataSource;

		private final TransactionTemplate template;

		Transactions(DataSource dataSource) {
			this.dataSource = dataSource;
			this.template = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		}

		void run(JdbcEpochFence fence, long id) {
			run(fence, id, () -> {
			});
		}

		void run(JdbcEpochFence fence, long id, Runnable between) {
			this.template.executeWithoutResult((status) -> {
				fence.joinTransaction(this.dataSource);
				between.run();
				JdbcClient.create(this.dataSource)
					.sql("INSERT INTO payouts (id, epoch) VALUES (?, ?)")
					.params(id, fence.epoch())
					.update();
			});
		}

	}

}
