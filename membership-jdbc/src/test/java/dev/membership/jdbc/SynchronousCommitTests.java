package dev.membership.jdbc;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code synchronous_commit} turned off on the server while the store runs (as
 * {@code ALTER SYSTEM} and a reload would for open sessions, with no word to their
 * clients; here for the database's new sessions), then a crash: the store's take-overs
 * and renewals commit durably all the same, so the epoch a take-over handed out is never
 * handed out again after the restart. Before: the take-over committed asynchronously, the
 * crash lost it, and the next take-over handed out its epoch again.
 */
class SynchronousCommitTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final JdbcStoreSettings SETTINGS = new JdbcStoreSettings("sc_", Duration.ofSeconds(4), true);

	@Test
	void aCommitSettingChangedUnderTheStoreLosesNoTakeOverInACrash() {
		JdbcClient admin = JdbcClient.create(postgres.dataSource());
		ServerProcesses server = new ServerProcesses(admin);
		JdbcMembershipStore store = new JdbcMembershipStore(postgres.dataSource(), SETTINGS);
		store.initialize();
		try {
			assertThat(take(store, "a")).isEqualTo(1L);
			// asynchronous commits for every new session (the server's command line sets
			// it, which ALTER SYSTEM does not outrank), and a WAL writer that leaves them
			// in memory for 10 s
			admin.sql("ALTER DATABASE postgres SET synchronous_commit = off").update();
			admin.sql("ALTER SYSTEM SET wal_writer_delay = '10s'").update();
			assertThat(admin.sql("SELECT pg_reload_conf()").query(Boolean.class).single()).isTrue();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> "off"
					.equals(admin.sql("SELECT current_setting('synchronous_commit')").query(String.class).single()));
			long taken = take(store, "b");
			assertThat(taken).isEqualTo(2L);
			server.stop("immediate");
		}
		finally {
			ServerProcesses.startAgain(postgres, server);
			admin.sql("ALTER DATABASE postgres RESET synchronous_commit").update();
			admin.sql("ALTER SYSTEM RESET wal_writer_delay").update();
			admin.sql("SELECT pg_reload_conf()").query(Boolean.class).single();
		}
		assertThat(admin.sql("SELECT epoch FROM sc_leases WHERE name = 'x'").query(Long.class).single())
			.as("the epoch of the take-over acknowledged before the crash")
			.isEqualTo(2L);
		assertThat(take(store, "c")).isEqualTo(3L);
	}

	private static long take(JdbcMembershipStore store, String node) {
		Instant now = store.serverTime().orElseThrow();
		return store.tryAcquire("x", new Holder(node, node + "-1", null), now.plusSeconds(3600), now.plusSeconds(3600))
			.map(LeaseRecord::epoch)
			.orElseThrow();
	}

}
