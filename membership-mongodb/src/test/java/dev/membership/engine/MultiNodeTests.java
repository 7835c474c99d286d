package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import com.mongodb.client.MongoClient;
import com.mongodb.client.model.Filters;
import org.awaitility.Awaitility;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.membership.leadership.LeaderChangedEvent;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.liveness.Member;
import dev.membership.liveness.MemberJoinedEvent;
import dev.membership.liveness.MemberLeftEvent;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.LeaderFlaps;
import dev.membership.testsupport.LeadershipRecorder;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Several plain-Java nodes in one JVM on one database, at short timings (renew 150 ms,
 * lease 600 ms, liveness 400 ms).
 */
@ExtendWith(FastPolling.class)
class MultiNodeTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private EmbeddedMongo mongo;

	private TestCluster cluster;

	@BeforeAll
	static void pollOften() {
		// measured times come from the recorder; polling only decides how soon a test
		// notices
		Awaitility.setDefaultPollInterval(Duration.ofMillis(10));
		Awaitility.setDefaultPollDelay(Duration.ZERO);
	}

	@BeforeEach
	void setUp() {
		this.mongo = new EmbeddedMongo();
		this.cluster = this.mongo.cluster();
	}

	@AfterEach
	void tearDown() {
		this.cluster.close();
		this.mongo.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void allNodesConvergeOnTheSameLiveMemberSetAndLeader() {
		Set<String> ids = Set.of("n1", "n2", "n3", "n4");
		ids.forEach(this.cluster::start);
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (String id : ids) {
				MembershipNode node = this.cluster.node(id);
				assertThat(node.liveMembers()).extracting(Member::nodeId).containsExactlyInAnyOrderElementsOf(ids);
				assertThat(node.status().ready()).isTrue();
			}
			assertThat(this.cluster.leaders(GROUP)).hasSize(1);
			String leader = this.cluster.leaders(GROUP).get(0).nodeId();
			for (String id : ids) {
				assertThat(this.cluster.node(id).leader(GROUP)).get()
					.satisfies((info) -> assertThat(info.nodeId()).isEqualTo(leader));
			}
		});
		// events reach the reactions on their own lane, after the roster that caused them
		await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
			for (String id : ids) {
				assertThat(this.cluster.events(id)).filteredOn(MemberJoinedEvent.class::isInstance)
					.hasSizeGreaterThanOrEqualTo(4);
			}
		});
	}

	/**
	 * A node whose heartbeats pass and whose every acquisition fails (a pooler in
	 * statement mode refuses the take-over's transaction) is not ready, though alive,
	 * until one is answered. Before: ready and health UP while nobody was ever elected.
	 */
	@Test
	void aNodeWhoseEveryAcquisitionFailsIsNotReadyUntilOneIsAnswered() {
		MembershipNode node = this.cluster.create("n1");
		this.cluster.store("n1").refuseAcquisitions(true);
		node.start();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> node.liveMembers().size() == 1 && node.status().lastHeartbeatAge() != null);
		await().atMost(Duration.ofSeconds(5)).until(() -> !node.status().ready());
		assertThat(node.status().lastHeartbeatAge()).as("alive all the while").isLessThan(Duration.ofSeconds(1));
		assertThat(node.isLeader(GROUP)).isFalse();
		this.cluster.store("n1").refuseAcquisitions(false);
		await().atMost(Duration.ofSeconds(5)).until(() -> node.status().ready() && node.isLeader(GROUP));
	}

	@Test
	void concurrentStartOfFiveNodesElectsExactlyOneLeader() throws Exception {
		List<MembershipNode> nodes = new ArrayList<>();
		for (int i = 1; i <= 5; i++) {
			nodes.add(this.cluster.create("n" + i));
		}
		ExecutorService pool = Executors.newFixedThreadPool(5);
		CountDownLatch go = new CountDownLatch(1);
		for (MembershipNode node : nodes) {
			pool.execute(() -> {
				try {
					go.await(5, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				node.start();
			});
		}
		go.countDown();
		pool.shutdown();
		assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.cluster.leaders(GROUP).size() == 1);
		// and it stays that way: sticky leadership, never two
		await().during(LEASE.multipliedBy(3))
			.atMost(LEASE.multipliedBy(4))
			.until(() -> this.cluster.leaders(GROUP).size() == 1);
		assertThat(this.cluster.recorder().intervals()).hasSize(1);
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		assertThat(leader.currentTerm(GROUP)).get().satisfies((term) -> assertThat(term.epoch()).isEqualTo(1));
	}

	@Test
	void aRestartedNodeRegainsLeadershipWithAHigherEpoch() {
		MembershipNode first = this.cluster.start("solo");
		await().atMost(Duration.ofSeconds(3)).until(() -> first.isLeader(GROUP));
		long firstEpoch = first.currentTerm(GROUP).orElseThrow().epoch();
		first.stop(Duration.ofSeconds(2));
		assertThat(first.isLeader(GROUP)).isFalse();

		MembershipNode second = this.cluster.start("solo");
		assertThat(second.incarnation()).isNotEqualTo(first.incarnation());
		await().atMost(Duration.ofSeconds(3)).until(() -> second.isLeader(GROUP));
		assertThat(second.currentTerm(GROUP).orElseThrow().epoch()).isGreaterThan(firstEpoch);
	}

	@Test
	void aCrashedLeaderIsReplacedWithinTheLeasePlusASmallMargin() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
		long crashed = System.nanoTime();
		leader.halt();
		await().atMost(LEASE.multipliedBy(4)).until(() -> this.cluster.leaders(GROUP).size() == 1);
		MembershipNode successor = this.cluster.leaders(GROUP).get(0);
		long successorEpoch = successor.currentTerm(GROUP).orElseThrow().epoch();
		// measured to the successor's belief as recorded on the recorder's clock, not to
		// when this thread saw it
		Duration failover = Duration.ofNanos(startOf(successor, successorEpoch) - crashed);
		System.out.printf("crash failover: %d ms (lease %d ms, renewal interval %d ms)%n", failover.toMillis(),
				LEASE.toMillis(), INTERVAL.toMillis());
		assertThat(successor.currentTerm(GROUP).orElseThrow().epoch()).isGreaterThan(epoch);
		assertThat(failover).isLessThanOrEqualTo(LEASE.plus(INTERVAL));
	}

	@Test
	void aGracefullyStoppedLeaderIsReplacedWithinOneInterval() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
		long stopped = System.nanoTime();
		leader.stop(Duration.ofSeconds(2));
		await().atMost(LEASE.multipliedBy(4)).until(() -> this.cluster.leaders(GROUP).size() == 1);
		MembershipNode successor = this.cluster.leaders(GROUP).get(0);
		Duration handover = Duration
			.ofNanos(startOf(successor, successor.currentTerm(GROUP).orElseThrow().epoch()) - stopped);
		System.out.printf("graceful hand-over: %d ms (renewal interval %d ms)%n", handover.toMillis(),
				INTERVAL.toMillis());
		assertThat(this.cluster.leaders(GROUP).get(0).currentTerm(GROUP).orElseThrow().epoch()).isGreaterThan(epoch);
		assertThat(handover).isLessThanOrEqualTo(INTERVAL.plusMillis(100));
		assertThat(this.cluster.events(leader.nodeId())).filteredOn(LeaderRevokedEvent.class::isInstance)
			.extracting((e) -> ((LeaderRevokedEvent) e).reason())
			.containsExactly(RevocationReason.SHUTDOWN);
	}

	@Test
	void repeatedResignsMakeNoLeaderFlapOnAnyNode() {
		startThreeAndAwaitLeader();
		for (int i = 0; i < 4; i++) {
			MembershipNode leader = this.cluster.leaders(GROUP).get(0);
			long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
			leader.operations().resign(new Resign(GROUP, Requester.of("test")));
			// one reading of the leaders: a term may end between two
			await().atMost(LEASE.multipliedBy(3)).until(() -> {
				List<MembershipNode> leaders = this.cluster.leaders(GROUP);
				return leaders.size() == 1
						&& leaders.get(0).currentTerm(GROUP).map((t) -> t.epoch() > epoch).orElse(false);
			});
		}
		// several reads of the leases later, every node knows the last leader
		MembershipNode last = this.cluster.leaders(GROUP).get(0);
		await().atMost(LEASE.multipliedBy(3))
			.until(() -> this.cluster.running()
				.stream()
				.allMatch((n) -> n.leader(GROUP).map((l) -> l.nodeId().equals(last.nodeId())).orElse(false)));
		List<LeaderChangedEvent> changes = this.cluster.running()
			.stream()
			.flatMap((n) -> this.cluster.events(n.nodeId()).stream())
			.filter(LeaderChangedEvent.class::isInstance)
			.map(LeaderChangedEvent.class::cast)
			.toList();
		LeaderFlaps.assertNone(changes);
	}

	@Test
	void resignHandsLeadershipToAnotherNode() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		leader.operations().resign(new Resign(GROUP, Requester.of("test")));
		await().atMost(LEASE).until(() -> !leader.isLeader(GROUP));
		await().atMost(LEASE.multipliedBy(3))
			.until(() -> this.cluster.leaders(GROUP).size() == 1 && !this.cluster.leaders(GROUP).contains(leader));
		assertThat(this.cluster.events(leader.nodeId())).filteredOn(LeaderRevokedEvent.class::isInstance)
			.extracting((e) -> ((LeaderRevokedEvent) e).reason())
			.containsExactly(RevocationReason.RESIGNED);
	}

	@Test
	void whenItsStoreIsUnreachableTheLeaderStepsDownBeforeItsLeaseExpiresInTheDatabase() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
		// cut every node off: nobody can renew or acquire, so the lease document stays as
		// last renewed
		this.cluster.running().forEach((n) -> this.cluster.store(n.nodeId()).down());
		await().atMost(LEASE.multipliedBy(2)).until(() -> !leader.isLeader(GROUP));
		// when the belief ended on the recorder's clock, as this JVM's wall clock (not
		// when this thread saw it)
		long endNanos = intervalOf(leader, epoch).endNanos();
		Instant steppedDown = Instant.now().minusNanos(System.nanoTime() - endNanos);
		Instant leaseExpiry;
		try (MongoClient client = this.mongo.newClient()) {
			Document lease = client.getDatabase("membership")
				.getCollection(this.cluster.namespace() + "_leases")
				.find(Filters.eq("_id", GROUP))
				.first();
			leaseExpiry = lease.getDate("expiresAt").toInstant();
		}
		// the embedded server's clock is this JVM's wall clock, so this comparison is
		// valid in this test only
		System.out.printf("stepped down %d ms before the lease expired in the database%n",
				Duration.between(steppedDown, leaseExpiry).toMillis());
		assertThat(steppedDown).isBefore(leaseExpiry);
		await().atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(this.cluster.events(leader.nodeId()))
				.filteredOn(LeaderRevokedEvent.class::isInstance)
				.extracting((e) -> ((LeaderRevokedEvent) e).reason())
				.containsExactly(RevocationReason.RENEWAL_DEADLINE_PASSED));
		assertThat(leader.status().consecutiveFailures()).isPositive();

		this.cluster.healAll();
		await().atMost(LEASE.multipliedBy(4)).until(() -> this.cluster.leaders(GROUP).size() == 1);
		assertThat(this.cluster.leaders(GROUP).get(0).currentTerm(GROUP).orElseThrow().epoch()).isGreaterThan(epoch);
	}

	@Test
	void aDatabaseOutageEndsLeadershipAndLeadershipReturnsWithTheDatabase() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
		long down = System.nanoTime();
		this.mongo.stop();
		await().atMost(LEASE.multipliedBy(3)).until(() -> this.cluster.leaders(GROUP).isEmpty());
		Duration stepDown = Duration.ofNanos(intervalOf(leader, epoch).endNanos() - down);
		System.out.printf("leader stepped down %d ms after the database stopped (lease %d ms)%n", stepDown.toMillis(),
				LEASE.toMillis());
		assertThat(stepDown).isLessThan(LEASE);

		this.mongo.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.cluster.leaders(GROUP).size() == 1);
		assertThat(this.cluster.leaders(GROUP).get(0).currentTerm(GROUP).orElseThrow().epoch()).isGreaterThan(epoch);
	}

	@Test
	void aHungStoreCallDoesNotExtendLeadership() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
		long hung = System.nanoTime();
		this.cluster.store(leader.nodeId()).hang();
		await().atMost(LEASE.multipliedBy(2)).until(() -> !leader.isLeader(GROUP));
		long ended = intervalOf(leader, epoch).endNanos();
		// the last renewal was sent before the hang began, so belief must end less than a
		// lease after it
		assertThat(Duration.ofNanos(ended - hung)).isLessThan(LEASE);
		await().atMost(LEASE.multipliedBy(4))
			.until(() -> this.cluster.leaders(GROUP).size() == 1 && !this.cluster.leaders(GROUP).contains(leader));
	}

	@Test
	void aLeaderThatResignsNeverLooksGoneToTheOthers() {
		startThreeAndAwaitLeader();
		// a leader renews instead of heartbeating: the released lease must not leave it
		// looking dead in the roster
		for (int i = 0; i < 6; i++) {
			MembershipNode leader = this.cluster.leaders(GROUP).get(0);
			long epoch = leader.currentTerm(GROUP).orElseThrow().epoch();
			leader.operations().resign(new Resign(GROUP, Requester.of("test")));
			await().atMost(Duration.ofSeconds(3)).until(() -> {
				List<MembershipNode> leaders = this.cluster.leaders(GROUP);
				return leaders.size() == 1
						&& leaders.get(0).currentTerm(GROUP).map((t) -> t.epoch() > epoch).orElse(false);
			});
			// for longer than the liveness window, every node keeps listing all three as
			// live
			await().during(TestCluster.LIVENESS.multipliedBy(2))
				.atMost(TestCluster.LIVENESS.multipliedBy(4))
				.until(() -> this.cluster.running().stream().allMatch((n) -> n.liveMembers().size() == 3));
		}
		for (MembershipNode node : this.cluster.running()) {
			assertThat(this.cluster.events(node.nodeId())).noneMatch(MemberLeftEvent.class::isInstance);
			assertThat(node.liveMembers()).hasSize(3);
		}
	}

	@Test
	void followersLearnOfLeaderChangesAndMembersLeaving() {
		startThreeAndAwaitLeader();
		MembershipNode leader = this.cluster.leaders(GROUP).get(0);
		List<MembershipNode> followers = this.cluster.running().stream().filter((n) -> n != leader).toList();
		leader.halt();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (MembershipNode follower : followers) {
				assertThat(this.cluster.events(follower.nodeId())).filteredOn(MemberLeftEvent.class::isInstance)
					.extracting((e) -> ((MemberLeftEvent) e).member().nodeId())
					.contains(leader.nodeId());
				assertThat(follower.leader(GROUP)).get()
					.satisfies((info) -> assertThat(info.nodeId()).isNotEqualTo(leader.nodeId()));
				assertThat(this.cluster.events(follower.nodeId())).filteredOn(LeaderChangedEvent.class::isInstance)
					.isNotEmpty();
			}
		});
		MembershipNode successor = this.cluster.leaders(GROUP).get(0);
		assertThat(this.cluster.events(successor.nodeId())).filteredOn(LeaderElectedEvent.class::isInstance).hasSize(1);
	}

	@Test
	void aDuplicateNodeIdIsReportedAndNeverLeadsTwice() {
		MembershipNode one = this.cluster.start("twin");
		await().atMost(Duration.ofSeconds(3)).until(() -> one.isLeader(GROUP));
		MembershipNode twin = this.cluster.createTwin("twin");
		twin.start();
		await().atMost(Duration.ofSeconds(3))
			.until(() -> one.status().duplicateNodeId() && twin.status().duplicateNodeId());
		await().during(LEASE).atMost(LEASE.multipliedBy(2)).until(() -> one.isLeader(GROUP) && !twin.isLeader(GROUP));
	}

	@Test
	void leadershipIsPerGroup() {
		this.cluster.customize((b) -> b.groups(Set.of("a", "b", "c")));
		startThreeAndAwait((c) -> Set.of("a", "b", "c").stream().allMatch((g) -> c.leaders(g).size() == 1));
		Set<String> groups = this.cluster.running()
			.stream()
			.flatMap((n) -> n.groups().stream())
			.collect(Collectors.toSet());
		// every node takes part in the default group too: its leader keeps the roster
		assertThat(groups).containsExactlyInAnyOrder("a", "b", "c", "default");
		await().atMost(Duration.ofSeconds(3)).until(() -> this.cluster.leaders("default").size() == 1);
	}

	@Test
	void aListenerThatThrowsNeverBreaksTheElectionLoop() {
		MembershipNode node = this.cluster.start("thrower", (event) -> {
			throw new IllegalStateException("listener failure");
		});
		await().atMost(Duration.ofSeconds(3)).until(() -> node.isLeader(GROUP));
		long epoch = node.currentTerm(GROUP).orElseThrow().epoch();
		// several leases later it still leads the same term: renewals kept going
		await().during(LEASE.multipliedBy(3))
			.atMost(LEASE.multipliedBy(4))
			.until(() -> node.currentTerm(GROUP).map((t) -> t.epoch() == epoch).orElse(false));
		assertThat(this.cluster.events("thrower")).isNotEmpty();
	}

	@Test
	void theLeaderRemovesLongDeadNodeDocumentsItself() {
		this.cluster.customize((b) -> b.deadNodeRetention(Duration.ofMillis(600)));
		MembershipNode leader = this.cluster.start("keeper");
		await().atMost(Duration.ofSeconds(3)).until(() -> leader.isLeader(GROUP));
		MembershipNode ghost = this.cluster.start("ghost");
		await().atMost(Duration.ofSeconds(3)).until(() -> leader.members().size() == 2);
		// its document stays behind; the TTL monitor never runs on the stand-in
		ghost.halt();
		await().atMost(Duration.ofSeconds(6))
			.until(() -> leader.members().stream().noneMatch((m) -> m.nodeId().equals("ghost")));
	}

	@Test
	void aNodeStartedWhileTheDatabaseIsDownJoinsOnceItIsBack() {
		this.mongo.stop();
		MembershipNode node = this.cluster.start("early");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.status().consecutiveFailures() > 0);
		assertThat(node.isLeader(GROUP)).isFalse();
		assertThat(node.status().ready()).isFalse();
		this.mongo.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> node.isLeader(GROUP) && node.status().ready());
	}

	/**
	 * The ended interval of this term (not the first in the recorder: a start-up may have
	 * flapped before it).
	 */
	/**
	 * The node's ended interval of that epoch, waited for: a belief ends when the node
	 * reads its deadline as passed, and the watchdog records the end a moment later.
	 */
	private LeadershipRecorder.Interval intervalOf(MembershipNode node, long epoch) {
		return await().atMost(Duration.ofSeconds(2))
			.until(() -> interval(node, epoch).filter((i) -> i.endNanos() != Long.MAX_VALUE), Optional::isPresent)
			.get();
	}

	/**
	 * When the node's belief in that epoch began, on the recorder's clock (waited for, as
	 * its end above).
	 */
	private long startOf(MembershipNode node, long epoch) {
		return await().atMost(Duration.ofSeconds(2))
			.until(() -> interval(node, epoch), Optional::isPresent)
			.get()
			.startNanos();
	}

	private Optional<LeadershipRecorder.Interval> interval(MembershipNode node, long epoch) {
		return this.cluster.recorder()
			.intervals()
			.stream()
			.filter((i) -> i.nodeId().equals(node.nodeId()) && i.group().equals(GROUP) && i.epoch() == epoch)
			.findFirst();
	}

	private void startThreeAndAwaitLeader() {
		startThreeAndAwait((c) -> c.leaders(GROUP).size() == 1);
	}

	private void startThreeAndAwait(java.util.function.Predicate<TestCluster> condition) {
		for (String id : List.of("n1", "n2", "n3")) {
			this.cluster.start(id);
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> condition.test(this.cluster)
					&& this.cluster.running().stream().allMatch((n) -> n.liveMembers().size() == 3));
	}

}
