package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.LeaderInfo;
import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Notices that the store does not back (forged with the broadcast key, or mistaken): a
 * notice may speed up what the store allows, never let a node believe what the store does
 * not say, nor hold back what it does. Before: a forged "lease released" made the second
 * node take the lease over while the first still led, and a forged "leader elected" far
 * ahead kept the second from taking over after the first stopped.
 */
class ForgedNoticeTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private final TestCluster cluster = InMemoryStores.cluster().withNotices();

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void aReleaseTheStoreDoesNotShowMakesNoSecondLeader() {
		MembershipNode n1 = startTwo();
		MembershipNode n2 = this.cluster.node("n2");
		long epoch = n1.leader(GROUP).orElseThrow().epoch();
		this.cluster.receiver("n2").leaseReleased(GROUP, epoch, "n1", "n2");
		await().during(LEASE.multipliedBy(2))
			.atMost(LEASE.multipliedBy(4))
			.until(() -> n1.isLeader(GROUP) && !n2.isLeader(GROUP));
		assertThat(n1.leader(GROUP).orElseThrow().epoch()).isEqualTo(epoch);
	}

	@Test
	void anElectionFarAheadHoldsNoTakeOverBack() {
		MembershipNode n1 = startTwo();
		MembershipNode n2 = this.cluster.node("n2");
		this.cluster.receiver("n2")
			.leaderElected(new LeaderInfo(GROUP, "ghost", null, 1_000_000_000L, Instant.parse("2027-12-31T00:00:00Z")));
		this.cluster.receiver("n2")
			.leaderElected(new LeaderInfo(GROUP, "ghost", null, n1.leader(GROUP).orElseThrow().epoch() + 1,
					Instant.parse("2027-12-31T00:00:00Z")));
		n1.stop(Duration.ofSeconds(5));
		await().atMost(LEASE.multipliedBy(6)).until(() -> n2.isLeader(GROUP));
	}

	/** n1, which leads, and n2, which knows it: n1 is returned. */
	private MembershipNode startTwo() {
		MembershipNode n1 = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(10)).until(() -> n1.isLeader(GROUP));
		MembershipNode n2 = this.cluster.start("n2");
		await().atMost(Duration.ofSeconds(10)).until(() -> n2.leader(GROUP).isPresent());
		return n1;
	}

}
