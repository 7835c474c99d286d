package dev.membership.jdbc;

import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import dev.membership.spi.Holder;
import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A server that turned read-only after the startup (a primary demoted,
 * default_transaction_read_only set): each write fails as retryable (a failover may
 * promote another) and says the server is read-only, with the fix, instead of reading as
 * an unreachable store. And a server reached again after a lost connection is read for
 * its durability again, as at the startup.
 */
class ReadOnlyServerTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	@Test
	void aWriteOnAReadOnlyServerIsRetryableAndNamesItAsSuch() {
		new JdbcMembershipStore(postgres.dataSource(), JdbcStoreSettings.defaults().withTablePrefix("ro_"))
			.initialize();
		PGSimpleDataSource readOnly = new PGSimpleDataSource();
		readOnly.setServerNames(new String[] { "127.0.0.1" });
		readOnly.setPortNumbers(new int[] { postgres.port() });
		readOnly.setDatabaseName("postgres");
		readOnly.setUser("postgres");
		readOnly.setOptions("-c default_transaction_read_only=on");
		JdbcMembershipStore store = new JdbcMembershipStore(readOnly,
				JdbcStoreSettings.defaults().withTablePrefix("ro_"));
		Instant now = Instant.now();
		StoreException failure = catchThrowableOfType(StoreException.class,
				() -> store.tryAcquire("g", new Holder("n1", "i1", "127.0.0.1:1"), now, now.plusSeconds(10)));
		assertThat(failure.isRetryable()).isTrue();
		assertThat(failure.getMessage()).contains("the server is read-only").contains("targetServerType=primary");
	}

	@Test
	void aServerReachedAgainIsCheckedForDurabilityAsAtTheStartup() {
		JdbcStoreSettings settings = JdbcStoreSettings.defaults().withTablePrefix("re_");
		SingleConnectionDataSource connections = new SingleConnectionDataSource(url(), "postgres", "", false);
		JdbcMembershipStore store = new JdbcMembershipStore(connections, settings);
		store.initialize();
		Holder holder = new Holder("n1", "i1", "127.0.0.1:1");
		Instant now = Instant.now();
		assertThat(store.tryAcquire("g", holder, now, now.plusSeconds(10))).isPresent();
		JdbcClient admin = JdbcClient.create(postgres.dataSource());
		// new sessions get it
		admin.sql("ALTER DATABASE postgres SET synchronous_commit = off").update();
		try {
			// the store's connection lost, as in a failover: the next call reaches a
			// server whose commits are not durable when acknowledged
			admin.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 're-store'")
				.query(Boolean.class)
				.list();
			StoreException lost = catchThrowableOfType(StoreException.class, () -> store.findLease("g"));
			assertThat(lost.isRetryable()).isTrue();
			connections.resetConnection();
			StoreException refused = catchThrowableOfType(StoreException.class, () -> store.findLease("g"));
			assertThat(refused.isRetryable()).isTrue();
			assertThat(refused.getMessage()).contains("reached again").contains("synchronous_commit");
		}
		finally {
			admin.sql("ALTER DATABASE postgres RESET synchronous_commit").update();
		}
		connections.resetConnection();
		assertThat(store.findLease("g")).as("durable again: the calls go through").isPresent();
		connections.destroy();
	}

	private static String url() {
		return "jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres?ApplicationName=re-store";
	}

}
