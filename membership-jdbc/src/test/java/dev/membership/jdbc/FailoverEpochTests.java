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
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A failover that loses the last take-overs, on real servers: a replica streams from the
 * primary, falls behind (stopped) while two more terms begin, and is promoted once the
 * primary is gone. The promoted server never had those terms, yet the epoch it hands out
 * next is larger than every epoch the old primary did: epochs are based on the WAL
 * timeline, which a promotion moves on. The broken variant (the stored epoch plus one)
 * hands out epoch 3 again.
 */
class FailoverEpochTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final JdbcStoreSettings SETTINGS = new JdbcStoreSettings("fo_", Duration.ofSeconds(4), true);

	private static final Duration HOUR = Duration.ofHours(1);

	@Test
	void aPromotedReplicaThatLostTheLastTakeOversHandsOutNoEpochAgain(@TempDir Path temp) throws Exception {
		ServerProcesses primary = new ServerProcesses(JdbcClient.create(postgres.dataSource()));
		JdbcMembershipStore onPrimary = new JdbcMembershipStore(postgres.dataSource(), SETTINGS);
		onPrimary.initialize();
		assertThat(take(onPrimary, "a")).isEqualTo(1L);
		assertThat(take(onPrimary, "b")).isEqualTo(2L);
		// the replica: a copy of the data directory made while the primary is stopped,
		// streaming from it
		Path copy = temp.resolve("replica");
		primary.copyAsStandby(copy, postgres.port(), "replica");
		int port = ServerProcesses.freePort();
		DataSource replicaDataSource = new DriverManagerDataSource(
				"jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2", "postgres", "");
		JdbcClient replica = JdbcClient.create(replicaDataSource);
		Process replicaServer = primary.start(copy.toString(), port);
		try {
			await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> epochOn(replica) == 2L);
			// SIGTERM: a smart shutdown; the replica falls behind from here
			replicaServer.destroy();
			assertThat(replicaServer.waitFor(60, TimeUnit.SECONDS)).isTrue();
			assertThat(take(onPrimary, "c")).isEqualTo(3L);
			assertThat(take(onPrimary, "d")).isEqualTo(4L);
			primary = new ServerProcesses(JdbcClient.create(postgres.dataSource()));
			// the primary is gone; its last two take-overs never reached the replica
			primary.stop("immediate");
			replicaServer = primary.start(copy.toString(), port);
			await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> epochOn(replica) == 2L);
			assertThat(replica.sql("SELECT pg_promote(true, 60)").query(Boolean.class).single()).isTrue();
			JdbcMembershipStore onPromoted = new JdbcMembershipStore(replicaDataSource, SETTINGS);
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(onPromoted::initialize);
			// the broken variant: the stored epoch plus one hands out an epoch the lost
			// terms had
			onPromoted.offTimeline();
			assertThat(take(onPromoted, "e")).as("off the timeline").isEqualTo(3L).isLessThanOrEqualTo(4L);
			onPromoted.initialize();
			long next = take(onPromoted, "f");
			assertThat(next).as("the epoch after a failover that lost epochs 3 and 4").isGreaterThan(4L);
			assertThat(next).isEqualTo((1L << 32) + 1);
			assertThat(take(onPromoted, "g")).isEqualTo(next + 1);
		}
		finally {
			replicaServer.destroyForcibly();
			replicaServer.waitFor(60, TimeUnit.SECONDS);
			ServerProcesses.startAgain(postgres, primary);
		}
	}

	/**
	 * Takes the lease of group {@code x} for {@code node}, however it is held: the epoch
	 * its term began with.
	 */
	private static long take(JdbcMembershipStore store, String node) {
		Instant now = store.serverTime().orElseThrow();
		return store.tryAcquire("x", new Holder(node, node + "-1", null), now.plus(HOUR), now.plus(HOUR))
			.map(LeaseRecord::epoch)
			.orElseThrow();
	}

	private static long epochOn(JdbcClient server) {
		return server.sql("SELECT epoch FROM fo_leases WHERE name = 'x'").query(Long.class).single();
	}

}
