package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.spi.LeaseRecord;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A graceful hand-over: the leaving node releases its lease, then says that it let go of
 * its term (after the drain, once its belief ended), and the successor it names takes the
 * lease the store shows released, at once. A release that cannot land leaves the lease to
 * expire: the successor takes it only then, never on the notice's word (a notice never
 * outranks the store). Every belief recorded on one clock; none overlaps.
 */
class HandOverByNoticeTests {

	private final TestCluster cluster = InMemoryStores.cluster().withNotices();

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void theSuccessorTakesTheReleasedLeaseAtOnce() {
		MembershipNode a = startThree();
		long epoch = a.currentTerm("default").orElseThrow().epoch();
		a.stopAsync(Duration.ofSeconds(5)).join();
		MembershipNode b = this.cluster.node("b");
		MembershipNode c = this.cluster.node("c");
		// not at the next read of the leases, nor at an expiry: on the notice
		await().atMost(LEASE.dividedBy(2)).until(() -> b.isLeader("default") || c.isLeader("default"));
		MembershipNode successor = b.isLeader("default") ? b : c;
		LeaseRecord lease = this.cluster.store("b").findLease("default").orElseThrow();
		assertThat(lease.holder().nodeId()).isEqualTo(successor.nodeId());
		assertThat(lease.epoch()).isEqualTo(epoch + 1);
		assertThat(this.cluster.events("a")).filteredOn(LeaseReleasedEvent.class::isInstance)
			.singleElement()
			.isEqualTo(new LeaseReleasedEvent("a", "default", epoch, "b"));
	}

	@Test
	void aReleaseThatCannotLandLeavesTheLeaseToExpire() {
		MembershipNode a = startThree();
		long epoch = a.currentTerm("default").orElseThrow().epoch();
		MembershipNode b = this.cluster.node("b");
		MembershipNode c = this.cluster.node("c");
		// a's store hangs from now on: its release (and its renewals, and its goodbye)
		// cannot land
		Instant expiry = this.cluster.store("b").findLease("default").orElseThrow().expiresAt();
		this.cluster.store("a").hang();
		CompletableFuture<Void> stopped = a.stopAsync(Duration.ofSeconds(5));
		await().atMost(LEASE.multipliedBy(4)).until(() -> b.isLeader("default") || c.isLeader("default"));
		MembershipNode successor = b.isLeader("default") ? b : c;
		long began = this.cluster.recorder()
			.intervals()
			.stream()
			.filter((i) -> i.nodeId().equals(successor.nodeId()) && i.epoch() == epoch + 1)
			.findFirst()
			.orElseThrow()
			.startNanos();
		// the in-memory store's clock is this JVM's wall clock, so this comparison is
		// valid in this test only: the successor's belief began once a's lease expired
		assertThat(Instant.now().minusNanos(System.nanoTime() - began)).isAfterOrEqualTo(expiry);
		this.cluster.store("a").heal();
		stopped.join();
		assertThat(successor.isLeader("default")).isTrue();
	}

	private MembershipNode startThree() {
		MembershipNode a = this.cluster.start("a");
		await().atMost(LEASE.multipliedBy(10)).until(() -> a.isLeader("default"));
		MembershipNode b = this.cluster.start("b");
		MembershipNode c = this.cluster.start("c");
		await().atMost(LEASE.multipliedBy(10))
			.until(() -> a.liveMembers().size() == 3 && b.leader("default").isPresent()
					&& c.leader("default").isPresent());
		return a;
	}

}
