package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.spi.LeaseRecord;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A graceful hand-over does not wait for the release to reach the database: the leaving
 * node says that it let go of its term (after the drain, once its belief ended), and the
 * successor it names takes the lease over from that very term while the release is still
 * on its way. Every belief recorded on one clock; none overlaps.
 */
class HandOverByNoticeTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final TestCluster cluster = new TestCluster(mongo).withNotices();

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void theSuccessorTakesOverFromTheTermLetGoOfWhileTheReleaseCannotLand() {
		MembershipNode a = this.cluster.start("a");
		await().atMost(LEASE.multipliedBy(10)).until(() -> a.isLeader("default"));
		MembershipNode b = this.cluster.start("b");
		MembershipNode c = this.cluster.start("c");
		await().atMost(LEASE.multipliedBy(10))
			.until(() -> a.liveMembers().size() == 3 && b.leader("default").isPresent()
					&& c.leader("default").isPresent());
		long epoch = a.currentTerm("default").orElseThrow().epoch();

		// a's store hangs from now on: its release (and its renewals, and its goodbye)
		// cannot land
		Instant expiry = this.cluster.store("b").findLease("default").orElseThrow().expiresAt();
		this.cluster.store("a").hang();
		CompletableFuture<Void> stopped = a.stopAsync(Duration.ofSeconds(5));

		// b or c (told here as every node is; b is the one named) takes over from a's
		// term: not by the release, not by the expiry (its belief began before a's lease,
		// as last read, could expire)
		await().atMost(LEASE.dividedBy(2)).until(() -> b.isLeader("default") || c.isLeader("default"));
		MembershipNode successor = b.isLeader("default") ? b : c;
		long began = await().atMost(Duration.ofSeconds(2))
			.until(() -> this.cluster.recorder()
				.intervals()
				.stream()
				.filter((i) -> i.nodeId().equals(successor.nodeId()) && i.epoch() == epoch + 1)
				.findFirst(), Optional::isPresent)
			.get()
			.startNanos();
		// the embedded server's clock is this JVM's wall clock, so this comparison is
		// valid in this test only
		assertThat(Instant.now().minusNanos(System.nanoTime() - began)).isBefore(expiry);
		LeaseRecord lease = this.cluster.store("b").findLease("default").orElseThrow();
		assertThat(lease.holder().nodeId()).isEqualTo(successor.nodeId());
		assertThat(lease.epoch()).isEqualTo(epoch + 1);
		await().atMost(LEASE)
			.untilAsserted(() -> assertThat(this.cluster.events("a")).filteredOn(LeaseReleasedEvent.class::isInstance)
				.singleElement()
				.isEqualTo(new LeaseReleasedEvent("a", "default", epoch, "b")));

		// the release lands late and matches nothing: b keeps the lease
		this.cluster.store("a").heal();
		stopped.join();
		assertThat(this.cluster.store("b").findLease("default").orElseThrow().holder().nodeId())
			.isEqualTo(successor.nodeId());
		assertThat(successor.isLeader("default")).isTrue();
	}

}
