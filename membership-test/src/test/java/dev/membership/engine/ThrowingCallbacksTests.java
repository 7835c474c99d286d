package dev.membership.engine;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.LeadershipRecorder;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node's metrics and leadership observers are code it is given (an application's bean,
 * an integration's): when one throws, the node elects, renews, hands over and says so as
 * it would without it, and the others are still called.
 */
@ExtendWith(FastPolling.class)
class ThrowingCallbacksTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private final AtomicInteger thrown = new AtomicInteger();

	private final TestCluster cluster = InMemoryStores.cluster();

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void metricsThatThrowChangeNothing() {
		this.cluster.customizeNodes((builder) -> builder.metrics(new ElectionMetrics() {

			@Override
			public void acquisition(String group, AcquisitionOutcome outcome) {
				throw failure("acquisition");
			}

			@Override
			public void renewal(String group, RenewalOutcome outcome) {
				throw failure("renewal");
			}

		}));
		leadsRenewsAndHandsOver();
	}

	@Test
	void anObserverThatThrowsChangesNothing() {
		// added before the cluster's recorder, which must still hear of every belief
		this.cluster.customizeNodes((builder) -> builder.observer(new LeadershipObserver() {

			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
				throw failure("started");
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
				throw failure("ended");
			}

		}));
		leadsRenewsAndHandsOver();
		assertThat(this.cluster.recorder().intervals()).extracting(LeadershipRecorder.Interval::nodeId)
			.containsExactly("n1", "n2");
	}

	@Test
	void aPlacementPolicyThatThrowsGivesWayToTheDefaultAndALeavingNodeStillReleases() {
		this.cluster.customize((settings) -> settings.partitions("t", 4))
			.customizeNodes((builder) -> builder.placement((demands, fixed) -> {
				throw failure("place");
			}));
		MembershipNode n1 = this.cluster.start("n1");
		MembershipNode n2 = this.cluster.start("n2");
		// placed as BalancedPlacement would: two partitions each
		await().atMost(Duration.ofSeconds(10))
			.until(() -> n1.ownedTerms("t").size() == 2 && n2.ownedTerms("t").size() == 2);
		int[] releasesBefore = this.cluster.store("n1").releaseCalls();
		n1.stop(Duration.ofSeconds(2));
		// its goodbye released its leases in one call (it works out their successors with
		// the policy first), not left to expire
		assertThat(this.cluster.store("n1").releaseCalls()[1] - releasesBefore[1]).as("releaseAll calls").isEqualTo(1);
		await().atMost(TestCluster.LEASE).until(() -> n2.ownedTerms("t").size() == 4);
		assertThat(this.thrown).as("the policy was called, and threw").hasPositiveValue();
	}

	private void leadsRenewsAndHandsOver() {
		MembershipNode n1 = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> n1.isLeader(GROUP));
		long epoch = n1.currentTerm(GROUP).orElseThrow().epoch();
		// past two leases: its renewals carried the term on
		await().during(TestCluster.LEASE.multipliedBy(2))
			.atMost(TestCluster.LEASE.multipliedBy(3))
			.until(() -> n1.isLeader(GROUP) && n1.currentTerm(GROUP).orElseThrow().epoch() == epoch);
		MembershipNode n2 = this.cluster.start("n2");
		await().atMost(Duration.ofSeconds(5)).until(() -> n2.leader(GROUP).isPresent());
		n1.operations().resign(new Resign(GROUP, Requester.of("test")));
		await().atMost(INTERVAL.multipliedBy(10)).until(() -> n2.isLeader(GROUP));
		assertThat(n2.currentTerm(GROUP).orElseThrow().epoch()).isGreaterThan(epoch);
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(this.cluster.events("n1")).filteredOn(LeaderRevokedEvent.class::isInstance)
				.extracting((e) -> ((LeaderRevokedEvent) e).reason())
				.containsExactly(RevocationReason.RESIGNED));
		assertThat(this.thrown).as("the callbacks were called, and threw").hasPositiveValue();
	}

	private IllegalStateException failure(String where) {
		this.thrown.incrementAndGet();
		return new IllegalStateException("a callback that throws (" + where + ")");
	}

}
