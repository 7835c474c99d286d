package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import com.mongodb.client.MongoClient;
import org.junit.jupiter.api.Test;

import dev.membership.mongo.MongoStores;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.LeadershipRecorder;
import dev.membership.testsupport.LeadershipRecorder.Interval;
import dev.membership.testsupport.TestCluster;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The safety checks would catch a broken election: they are not tests that cannot fail.
 */
class SafetyCheckCanFailTests {

	@Test
	void overlappingBeliefsAreReported() {
		List<Interval> overlapping = List.of(new Interval("a", "g", 1, 0, 100), new Interval("b", "g", 2, 99, 200));
		assertThatThrownBy(() -> LeadershipRecorder.assertSafe(overlapping)).hasMessageContaining("began leading");
	}

	@Test
	void aNonIncreasingEpochIsReported() {
		List<Interval> stale = List.of(new Interval("a", "g", 2, 0, 100), new Interval("b", "g", 2, 100, 200));
		assertThatThrownBy(() -> LeadershipRecorder.assertSafe(stale)).hasMessageContaining("epoch");
	}

	@Test
	void separateGroupsMayHaveLeadersAtTheSameTime() {
		LeadershipRecorder.assertSafe(List.of(new Interval("a", "g1", 1, 0, 100), new Interval("b", "g2", 1, 0, 100)));
	}

	@Test
	void aStoreThatGrantsEveryAcquisitionIsCaught() {
		try (EmbeddedMongo mongo = new EmbeddedMongo(); MongoClient client = mongo.newClient()) {
			MembershipStore real = MongoStores.create(client.getDatabase("membership"), "broken");
			LeadershipRecorder recorder = new LeadershipRecorder();
			List<MembershipNode> nodes = List.of("x", "y").stream().map((id) -> {
				MembershipNode node = MembershipNode
					.builder(MembershipSettings.builder(id)
						.renewalInterval(TestCluster.INTERVAL)
						.leaseDuration(TestCluster.LEASE)
						.livenessWindow(TestCluster.LIVENESS)
						.build(), new GrantEverything(real))
					.advertisedAddress("127.0.0.1:1")
					.observer(recorder)
					.build();
				node.start();
				return node;
			}).toList();
			try {
				await().atMost(Duration.ofSeconds(3))
					.until(() -> nodes.stream().allMatch((n) -> n.isLeader("default")));
			}
			finally {
				nodes.forEach(MembershipNode::halt);
			}
			assertThatThrownBy(recorder::assertSafe).isInstanceOf(AssertionError.class);
		}
	}

	/** A broken store: every acquisition succeeds. */
	private static final class GrantEverything implements MembershipStore {

		private final MembershipStore delegate;

		private long epoch;

		GrantEverything(MembershipStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public synchronized Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore,
				Instant expiresAt) {
			Instant stamp = this.delegate.serverTime().orElseThrow();
			return Optional.of(new LeaseRecord(group, holder, ++this.epoch, expiresAt, stamp, stamp));
		}

		@Override
		public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
				java.util.List<dev.membership.spi.FireMark> fires) {
			return this.delegate.serverTime();
		}

		@Override
		public long renewAll(Holder holder, java.util.Map<String, Long> epochs, Instant expiresAt,
				java.util.Map<String, java.util.List<dev.membership.spi.FireMark>> fires) {
			return epochs.size();
		}

		@Override
		public boolean release(String group, Holder holder, long epoch,
				java.util.List<dev.membership.spi.FireMark> fires) {
			return true;
		}

		@Override
		public void initialize() {
		}

		@Override
		public Optional<Instant> serverTime() {
			return this.delegate.serverTime();
		}

		@Override
		public Optional<LeaseRecord> findLease(String group) {
			return Optional.empty();
		}

		@Override
		public dev.membership.spi.Heartbeat heartbeat(dev.membership.spi.NodeRecord node) {
			return this.delegate.heartbeat(node);
		}

		@Override
		public dev.membership.spi.LeaseReading findLeases(java.util.Collection<String> groups, long rosterVersion) {
			// and hides who leads, so every node keeps trying
			return new dev.membership.spi.LeaseReading(java.util.Map.of(),
					this.delegate.findLeases(groups, rosterVersion).roster());
		}

		@Override
		public Optional<dev.membership.spi.Roster> findRoster() {
			return this.delegate.findRoster();
		}

		@Override
		public java.util.OptionalLong writeRoster(List<dev.membership.liveness.Member> members,
				List<dev.membership.spi.RosterChange> changes,
				java.util.Map<String, dev.membership.spi.GroupAssignment> assignments, String keeperNodeId, long epoch,
				long sequence) {
			return this.delegate.writeRoster(members, changes, assignments, keeperNodeId, epoch, sequence);
		}

		@Override
		public List<dev.membership.spi.NodeRecord> findNodes() {
			return this.delegate.findNodes();
		}

		@Override
		public void removeNode(String nodeId, String incarnation) {
		}

		@Override
		public long removeNodesNotSeenSince(Instant cutoff) {
			return 0;
		}

	}

}
