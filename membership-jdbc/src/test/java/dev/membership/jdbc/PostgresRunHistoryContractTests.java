package dev.membership.jdbc;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.RunHistoryStore;
import dev.membership.test.RunHistoryContract;

/**
 * The run history contract, against a real PostgreSQL server; each test on tables of its
 * own prefix.
 */
class PostgresRunHistoryContractTests extends RunHistoryContract {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final AtomicInteger prefixes = new AtomicInteger();

	@Override
	protected RunHistoryStore createHistory() {
		JdbcStoreSettings settings = JdbcStoreSettings.defaults()
			.withTablePrefix("h" + prefixes.incrementAndGet() + "_");
		RunHistoryStore history = new JdbcRunHistory(postgres.dataSource(), settings, Duration.ofDays(7), MAX_RUNS);
		history.initialize();
		return history;
	}

}
