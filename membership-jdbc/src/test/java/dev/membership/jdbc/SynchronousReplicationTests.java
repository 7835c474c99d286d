package dev.membership.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A synchronous standby that stops acknowledging, then a failover to it, on real servers.
 * While the standby is gone, a lease write waits for it until the statement is cancelled
 * (the store's own query timeout here; a DBA's {@code pg_cancel_backend} or a
 * {@code statement_timeout} alike), and PostgreSQL then answers with the write committed
 * locally and a warning ("canceling wait for synchronous replication"): the store must
 * take that as an unknown outcome, never as done, since the standby that a failover
 * promotes never had it. Before: the renewal and the take-over returned success, and the
 * node was told its lease ran past what the promoted server held.
 */
class SynchronousReplicationTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final JdbcStoreSettings SETTINGS = new JdbcStoreSettings("sr_", Duration.ofSeconds(2), true);

	private static final Holder N1 = new Holder("n1", "n1-1", null);

	private static final Holder N2 = new Holder("n2", "n2-1", null);

	@Test
	void aWriteTheSynchronousStandbyNeverAcknowledgedIsNeverDone(@TempDir Path temp) throws Exception {
		JdbcClient admin = JdbcClient.create(postgres.dataSource());
		ServerProcesses primary = new ServerProcesses(admin);
		JdbcMembershipStore onPrimary = new JdbcMembershipStore(postgres.dataSource(), SETTINGS);
		onPrimary.initialize();
		Path copy = temp.resolve("standby");
		primary.copyAsStandby(copy, postgres.port(), "s1");
		int port = ServerProcesses.freePort();
		DataSource standbyDataSource = ServerProcesses.dataSource(port);
		JdbcClient standby = JdbcClient.create(standbyDataSource);
		Process standbyServer = primary.start(copy.toString(), port);
		try {
			await().atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> admin.sql("ALTER SYSTEM SET synchronous_standby_names = 's1'").update() >= 0
						&& admin.sql("SELECT pg_reload_conf()").query(Boolean.class).single() && "sync".equals(
								admin.sql("SELECT sync_state FROM pg_stat_replication").query(String.class).single()));
			Instant now = onPrimary.serverTime().orElseThrow();
			LeaseRecord taken = onPrimary.tryAcquire("x", N1, now, now.plusSeconds(10)).orElseThrow();
			Instant held = taken.expiresAt();
			Instant renewedTo = now.plusSeconds(20);
			assertThat(onPrimary.renew("x", N1, taken.epoch(), renewedTo, null)).isPresent();
			held = renewedTo;
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> expiryOn(standby).equals(renewedTo));
			// the synchronous standby stops acknowledging
			standbyServer.destroy();
			assertThat(standbyServer.waitFor(60, TimeUnit.SECONDS)).isTrue();
			for (int i = 1; i <= 2; i++) {
				Instant later = renewedTo.plusSeconds(10L * i);
				assertThatExceptionOfType(StoreException.class)
					.as("renewal %d while the synchronous standby is gone", i)
					.isThrownBy(() -> onPrimary.renew("x", N1, taken.epoch(), later, null))
					.withMessageContaining("synchronous replication");
				// committed on the primary alone: an unknown outcome, not a refusal
				assertThat(expiryOn(admin)).isEqualTo(later);
			}
			Instant free = onPrimary.serverTime().orElseThrow().plusSeconds(3600);
			assertThatExceptionOfType(StoreException.class).as("a take-over while the synchronous standby is gone")
				.isThrownBy(() -> onPrimary.tryAcquire("y", N2, free, free.plusSeconds(10)))
				.withMessageContaining("synchronous replication");
			// the failover: the primary is gone, the standby promoted without the writes
			// it never acknowledged
			primary = new ServerProcesses(admin);
			primary.stop("immediate");
			standbyServer = primary.start(copy.toString(), port);
			await().atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> standby.sql("SELECT pg_promote(true, 60)").query(Boolean.class).single());
			assertThat(expiryOn(standby)).as("what the promoted server holds is what the node was told it holds")
				.isEqualTo(held);
			assertThat(standby.sql("SELECT count(*) FROM sr_leases WHERE name = 'y'").query(Long.class).single())
				.isZero();
		}
		finally {
			standbyServer.destroyForcibly();
			standbyServer.waitFor(60, TimeUnit.SECONDS);
			ServerProcesses.startAgain(postgres, primary);
		}
	}

	private static Instant expiryOn(JdbcClient server) {
		return server.sql("SELECT expires_at FROM sr_leases WHERE name = 'x'")
			.query((rs, i) -> Statements.instant(rs, "expires_at"))
			.single();
	}

}
