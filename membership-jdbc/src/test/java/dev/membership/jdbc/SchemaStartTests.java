package dev.membership.jdbc;

import java.sql.Connection;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start where the tables are there already reads the catalog and changes nothing: it
 * never waits behind the application's writers. Before: each start's
 * {@code CREATE INDEX IF NOT EXISTS} on the history took its table's {@code SHARE} lock
 * first and waited behind every open writer (2.7 s in the review; here, until the call's
 * bound, then failed).
 */
class SchemaStartTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final JdbcStoreSettings SETTINGS = new JdbcStoreSettings("ss_", Duration.ofSeconds(4), true);

	@Test
	void aStartDoesNotWaitBehindAWriterOfTheHistory() throws Exception {
		new JdbcMembershipStore(postgres.dataSource(), SETTINGS).initialize();
		try (Connection writer = postgres.dataSource().getConnection()) {
			writer.setAutoCommit(false);
			writer.createStatement().execute("LOCK TABLE ss_runs IN ROW EXCLUSIVE MODE");
			long started = System.nanoTime();
			new JdbcMembershipStore(postgres.dataSource(), SETTINGS).initialize();
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
			writer.rollback();
		}
	}

}
