package dev.membership.engine;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.FaultInjectingStore;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A primary's step-down fails multi-document writes, which the drivers never retry (the
 * retryable-writes specification leaves updateMany out): the renewal of every partition a
 * node owns, and the release of all its leases at a graceful stop. A retryable failure is
 * reissued once at once, so the renewal of that interval still lands; any other failure
 * is not repeated one lease at a time, since the calls would fail the same way.
 */
class MultiLeaseWriteRetryTests {

	private final TestCluster cluster = InMemoryStores.cluster().customize((settings) -> settings.partitions("t", 4));

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void aRenewalThatFailedRetryablyIsReissuedAtOnceAndItsDeadlineMoves() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(LEASE.multipliedBy(10)).until(() -> node.partitions("t").owned().size() == 4);
		FaultInjectingStore store = this.cluster.store("n1");
		int before = store.renewAllCalls().size();
		store.failMultiLeaseWrites(1, true, false);
		await().atMost(INTERVAL.multipliedBy(4)).until(() -> store.renewAllCalls().size() >= before + 2);
		List<Long> calls = store.renewAllCalls();
		long gap = calls.get(before + 1) - calls.get(before);
		assertThat(Duration.ofNanos(gap)).as("the reissue follows the failure").isLessThan(INTERVAL.dividedBy(2));
		LeadershipTerm term = node.ownedTerms("t").get(0);
		// confirmed by the read of the same interval: the belief runs a whole lease less
		// the margin from it
		await().atMost(INTERVAL.multipliedBy(2))
			.until(() -> term.remaining().compareTo(LEASE.minus(INTERVAL.multipliedBy(2))) > 0);
		assertThat(this.cluster.events("n1")).noneMatch(PartitionRevokedEvent.class::isInstance);
	}

	@Test
	void aReleaseThatFailedRetryablyIsReissuedOnceAndNothingIsSentLeaseByLease() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(LEASE.multipliedBy(10)).until(() -> node.partitions("t").owned().size() == 4);
		FaultInjectingStore store = this.cluster.store("n1");
		store.failMultiLeaseWrites(1, true, true);
		node.stop(LEASE);
		assertThat(store.releaseCalls()).as("{release, releaseAll}").containsExactly(0, 2);
		for (int p = 0; p < 4; p++) {
			assertThat(this.cluster.store("n1").findLease("t#" + p).orElseThrow().expiresAt())
				.isEqualTo(dev.membership.spi.LeaseRecord.RELEASED);
		}
	}

	@Test
	void aReleaseThatFailedOtherwiseIsNotRepeatedAndTheLeasesAreLeftToExpire() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(LEASE.multipliedBy(10)).until(() -> node.partitions("t").owned().size() == 4);
		FaultInjectingStore store = this.cluster.store("n1");
		store.failMultiLeaseWrites(2, false, false);
		node.stop(LEASE);
		assertThat(store.releaseCalls()).as("{release, releaseAll}").containsExactly(0, 1);
	}

	@Test
	void aStoreThatCannotKeepLeasesSafeAsSetUpTakesNoLeaseUntilMended() {
		MembershipNode node = this.cluster.create("n1");
		FaultInjectingStore store = this.cluster.store("n1");
		store.failInitialize(new IllegalStateException("The membership collections must not be sharded"));
		node.start();
		await().during(LEASE.multipliedBy(2)).atMost(LEASE.multipliedBy(3)).until(() -> !node.isLeader("default"));
		assertThat(node.status().lastError()).contains("must not be sharded");
		store.failInitialize(null);
		await().atMost(LEASE.multipliedBy(10)).until(() -> node.isLeader("default"));
	}

}
