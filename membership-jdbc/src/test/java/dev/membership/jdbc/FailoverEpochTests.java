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
		DataSource replicaDataSource = ServerProcesses.dataSource(port);
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
			// on timeline 2: the database's clock in milliseconds, past the timeline's
			// base
			assertThat(next).isGreaterThan((1L << 32) + 1)
				.isGreaterThanOrEqualTo(onPromoted.serverTime().orElseThrow().toEpochMilli() - 60_000);
			assertThat(take(onPromoted, "g")).isGreaterThan(next);
		}
		finally {
			replicaServer.destroyForcibly();
			replicaServer.waitFor(60, TimeUnit.SECONDS);
			ServerProcesses.startAgain(postgres, primary);
		}
	}

	/**
	 * Two promotions of one history in a row, without a shared WAL archive: the primary
	 * gone, replica s1 promoted (timeline 2) and a lease taken there; s1 gone, replica s2
	 * promoted, which never followed s1 and picks timeline 2 too. The epoch s2 hands out
	 * is larger than s1's all the same: past the first timeline, epochs are based on the
	 * database's clock as well. Before: s2 handed out s1's epoch again (4294967297 on
	 * both).
	 */
	@Test
	void twoPromotionsThatPickTheSameTimelineHandOutNoEpochTwice(@TempDir Path temp) throws Exception {
		ServerProcesses primary = new ServerProcesses(JdbcClient.create(postgres.dataSource()));
		JdbcMembershipStore onPrimary = new JdbcMembershipStore(postgres.dataSource(), SETTINGS);
		onPrimary.initialize();
		long first = take(onPrimary, "a");
		Path copy1 = temp.resolve("s1");
		Path copy2 = temp.resolve("s2");
		primary.copyAsStandby(copy1, postgres.port(), "s1");
		primary = ServerProcesses.running(postgres);
		primary.copyAsStandby(copy2, postgres.port(), "s2");
		primary = ServerProcesses.running(postgres);
		int port1 = ServerProcesses.freePort();
		int port2 = ServerProcesses.freePort();
		DataSource s1 = ServerProcesses.dataSource(port1);
		DataSource s2 = ServerProcesses.dataSource(port2);
		Process server1 = primary.start(copy1.toString(), port1);
		Process server2 = primary.start(copy2.toString(), port2);
		try {
			await().atMost(Duration.ofSeconds(60))
				.ignoreExceptions()
				.until(() -> epochOn(JdbcClient.create(s1)) == first && epochOn(JdbcClient.create(s2)) == first);
			primary.stop("immediate");
			assertThat(JdbcClient.create(s1).sql("SELECT pg_promote(true, 60)").query(Boolean.class).single()).isTrue();
			JdbcMembershipStore onS1 = new JdbcMembershipStore(s1, SETTINGS);
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(onS1::initialize);
			long onFirstPromotion = take(onS1, "b");
			assertThat(onFirstPromotion).isGreaterThan(first);
			// s1 gone; s2, which never followed it, promoted
			server1.destroyForcibly();
			assertThat(server1.waitFor(60, TimeUnit.SECONDS)).isTrue();
			assertThat(JdbcClient.create(s2).sql("SELECT pg_promote(true, 60)").query(Boolean.class).single()).isTrue();
			JdbcMembershipStore onS2 = new JdbcMembershipStore(s2, SETTINGS);
			await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(onS2::initialize);
			assertThat(timeline(JdbcClient.create(s2))).as("the same timeline as s1's").isEqualTo(2);
			assertThat(take(onS2, "c")).as("the epoch after the second promotion").isGreaterThan(onFirstPromotion);
		}
		finally {
			server1.destroyForcibly();
			server2.destroyForcibly();
			server1.waitFor(60, TimeUnit.SECONDS);
			server2.waitFor(60, TimeUnit.SECONDS);
			ServerProcesses.startAgain(postgres, primary);
		}
	}

	private static int timeline(JdbcClient server) {
		return server.sql("SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int")
			.query(Integer.class)
			.single();
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
