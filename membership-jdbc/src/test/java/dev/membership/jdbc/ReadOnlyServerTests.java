package dev.membership.jdbc;

import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

import dev.membership.spi.Holder;
import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A server that turned read-only after the startup (a primary demoted, default_transaction_read_only set): each write
 * fails as retryable (a failover may promote another) and says the server is read-only, with the fix, instead of
 * reading as an unreachable store.
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

}
