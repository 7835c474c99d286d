package dev.membership.engine;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.operations.Drain;
import dev.membership.operations.HandOver;
import dev.membership.operations.Pause;
import dev.membership.operations.Pin;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.LeadershipRecorder;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An operator's drain, undrain and hand-over on real threads and the test kit's in-memory
 * store, with notices as over the broadcast (renew 150 ms, lease 600 ms): a drained node
 * hands everything over within an interval and takes nothing while drained, the placement
 * leaves it out, an undrain gives it its share back, and a hand-over goes to the named
 * node alone. Every belief is recorded on one clock; none overlap.
 */
@ExtendWith(FastPolling.class)
class OperatorActionTests {

	private static final int PARTITIONS = 6;

	private static final Requester BY = Requester.of("test");

	private final TestCluster cluster = InMemoryStores.cluster()
		.withNotices()
		.customize((settings) -> settings.partitions("t", PARTITIONS).groups(Set.of("reports")));

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	private List<MembershipNode> startThree() {
		List<MembershipNode> nodes = List.of(this.cluster.start("n1"), this.cluster.start("n2"),
				this.cluster.start("n3"));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> nodes.stream()
				.allMatch((n) -> n.liveMembers().size() == 3 && n.ownedTerms("t").size() == PARTITIONS / 3));
		return nodes;
	}

	private static int holds(MembershipNode node) {
		int groups = (int) node.groups().stream().filter((g) -> !g.equals("t") && node.isLeader(g)).count();
		return groups + node.ownedTerms("t").size();
	}

	@Test
	void aDrainedNodeHandsEverythingOverTakesNothingAndGetsItsShareBackWhenUndrained() {
		List<MembershipNode> nodes = startThree();
		MembershipNode drained = nodes.stream()
			.max(java.util.Comparator.comparingInt(OperatorActionTests::holds))
			.orElseThrow();
		int eventsBefore = this.cluster.events(drained.nodeId()).size();
		long began = System.nanoTime();
		drained.operations().drain(new Drain(BY));
		await().atMost(INTERVAL.multipliedBy(4)).until(() -> holds(drained) == 0);
		Duration took = Duration.ofNanos(lastEndOf(drained) - began);
		System.out.printf("drain: %s held nothing %d ms after the drain (interval %d ms)%n", drained.nodeId(),
				took.toMillis(), INTERVAL.toMillis());
		// no leader-only work ran: no drain wait
		assertThat(took).isLessThanOrEqualTo(INTERVAL.plusMillis(100));
		assertThat(drained.status().drained()).isTrue();
		// the others own every partition and the groups, and the placement leaves the
		// drained node out
		await().atMost(INTERVAL.multipliedBy(10))
			.until(() -> nodes.stream()
				.filter((n) -> n != drained)
				.mapToInt((n) -> n.ownedTerms("t").size())
				.sum() == PARTITIONS
					&& nodes.stream().filter((n) -> n != drained).anyMatch((n) -> n.isLeader("default")));
		java.util.concurrent.Callable<Boolean> leftOut = () -> holds(drained) == 0
				&& drained.partitions("t").placement().values().stream().noneMatch(drained.nodeId()::equals);
		// the keeper's next write (within an interval), read by the drained node (within
		// the next)
		await().atMost(INTERVAL.multipliedBy(2)).until(leftOut);
		await().during(INTERVAL.multipliedBy(6)).atMost(INTERVAL.multipliedBy(8)).until(leftOut);
		assertThat(drained.liveMembers()).as("still a live member").hasSize(3);
		List<dev.membership.event.MembershipEvent> events = this.cluster.events(drained.nodeId());
		assertThat(events.subList(eventsBefore, events.size()))
			.filteredOn((e) -> e instanceof PartitionRevokedEvent || e instanceof LeaderRevokedEvent)
			.allSatisfy((e) -> assertThat(
					(e instanceof PartitionRevokedEvent p) ? p.reason() : ((LeaderRevokedEvent) e).reason())
				.isEqualTo(RevocationReason.DRAINED));

		drained.operations().undrain(new Undrain(BY));
		assertThat(drained.status().drained()).isFalse();
		await().atMost(Duration.ofSeconds(10)).until(() -> drained.ownedTerms("t").size() == PARTITIONS / 3);
	}

	@Test
	void aHandOverGoesToTheNamedNodeAloneAndIsRefusedForANodeThatIsNotLive() {
		List<MembershipNode> nodes = startThree();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> nodes.stream().filter((n) -> n.isLeader("reports")).count() == 1);
		MembershipNode leader = nodes.stream().filter((n) -> n.isLeader("reports")).findFirst().orElseThrow();
		MembershipNode follower = nodes.stream().filter((n) -> n != leader).findFirst().orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> follower.leader("reports").isPresent());
		assertThatThrownBy(() -> follower.operations().handOver(new HandOver("reports", leader.nodeId(), BY)))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("does not lead group 'reports'")
			.hasMessageContaining(leader.nodeId() + " does");
		assertThatThrownBy(() -> leader.operations().handOver(new HandOver("reports", "n9", BY)))
			.hasMessageContaining("'n9' is not a live member");

		MembershipNode to = nodes.stream().filter((n) -> n != leader && n != follower).findFirst().orElseThrow();
		long epoch = leader.currentTerm("reports").orElseThrow().epoch();
		long began = System.nanoTime();
		leader.operations().handOver(new HandOver("reports", to.nodeId(), BY));
		await().atMost(INTERVAL.multipliedBy(4)).until(() -> to.isLeader("reports"));
		assertThat(to.currentTerm("reports").orElseThrow().epoch()).isGreaterThan(epoch);
		// since the hand-over was asked: the leader's term ended, and the named node's
		// alone began (the recorder hears of a belief a moment after the node holds it)
		List<LeadershipRecorder.Interval> since = await().atMost(Duration.ofSeconds(2))
			.until(() -> this.cluster.recorder()
				.intervals()
				.stream()
				.filter((i) -> i.group().equals("reports") && i.endNanos() > began)
				.toList(), (list) -> list.stream().anyMatch((i) -> i.nodeId().equals(to.nodeId())));
		assertThat(since).extracting(LeadershipRecorder.Interval::nodeId).containsExactly(leader.nodeId(), to.nodeId());
		// measured to the named node's belief on the recorder's clock, not to when this
		// thread saw it
		Duration took = Duration.ofNanos(since.get(1).startNanos() - began);
		System.out.printf("hand-over: %s led 'reports' %d ms after it was asked%n", to.nodeId(), took.toMillis());
		assertThat(took).isLessThan(INTERVAL);
	}

	/**
	 * When the node's last belief ended, on the recorder's clock, once none is open (the
	 * watchdog records an end a moment after the node let its term go).
	 */
	private long lastEndOf(MembershipNode node) {
		return await().atMost(Duration.ofSeconds(2)).until(() -> {
			List<LeadershipRecorder.Interval> mine = this.cluster.recorder()
				.intervals()
				.stream()
				.filter((i) -> i.nodeId().equals(node.nodeId()))
				.toList();
			boolean open = mine.stream().anyMatch((i) -> i.endNanos() == Long.MAX_VALUE);
			return open ? java.util.OptionalLong.empty()
					: mine.stream().mapToLong(LeadershipRecorder.Interval::endNanos).max();
		}, java.util.OptionalLong::isPresent).getAsLong();
	}

	private MembershipNode coordinator(List<MembershipNode> nodes) {
		await().atMost(Duration.ofSeconds(5))
			.until(() -> nodes.stream().filter((n) -> n.isLeader("default")).count() == 1);
		return nodes.stream().filter((n) -> n.isLeader("default")).findFirst().orElseThrow();
	}

	private static MembershipNode ownerOf(List<MembershipNode> nodes, int partition) {
		return nodes.stream().filter((n) -> n.partitions("t").owned().contains(partition)).findFirst().orElseThrow();
	}

	@Test
	void aPinnedPartitionMovesToItsNodeAndStaysThroughAJoinUntilUnpinned() {
		List<MembershipNode> nodes = new java.util.ArrayList<>(startThree());
		MembershipNode coordinator = coordinator(nodes);
		MembershipNode from = ownerOf(nodes, 0);
		MembershipNode to = nodes.stream().filter((n) -> n != from).findFirst().orElseThrow();
		MembershipNode other = nodes.stream().filter((n) -> n != coordinator).findFirst().orElseThrow();
		assertThatThrownBy(() -> other.operations().pin(new Pin("t", 0, to.nodeId(), BY)))
			.hasMessageContaining("does not coordinate the placement")
			.hasMessageContaining(coordinator.nodeId() + " does");
		assertThatThrownBy(() -> coordinator.operations().pin(new Pin("t", PARTITIONS, to.nodeId(), BY)))
			.hasMessageContaining("partitions 0 to " + (PARTITIONS - 1));

		long began = System.nanoTime();
		coordinator.operations().pin(new Pin("t", 0, to.nodeId(), BY));
		await().atMost(INTERVAL.multipliedBy(6)).until(() -> to.partitions("t").owned().contains(0));
		// measured to the new owner's belief on the recorder's clock, not to when this
		// thread saw it
		Duration took = Duration.ofNanos(await().atMost(Duration.ofSeconds(2))
			.until(() -> this.cluster.recorder()
				.intervals()
				.stream()
				.filter((i) -> i.group().equals("t#0") && i.nodeId().equals(to.nodeId()) && i.startNanos() > began)
				.findFirst(), java.util.Optional::isPresent)
			.get()
			.startNanos() - began);
		System.out.printf("move: partition 0 moved from %s to %s in %d ms (bound: 3 intervals, %d ms)%n", from.nodeId(),
				to.nodeId(), took.toMillis(), INTERVAL.multipliedBy(3).toMillis());
		assertThat(took).isLessThanOrEqualTo(INTERVAL.multipliedBy(3));

		// a join rebalances the group, but the pinned partition stays
		MembershipNode joiner = this.cluster.start("n4");
		nodes.add(joiner);
		await().atMost(Duration.ofSeconds(10)).until(() -> joiner.partitions("t").owned().size() >= 1);
		await().during(INTERVAL.multipliedBy(4))
			.atMost(INTERVAL.multipliedBy(6))
			.until(() -> to.partitions("t").owned().contains(0));
		assertThat(coordinator.partitions("t").placement().get(0)).isEqualTo(to.nodeId());

		// the pin lives in the roster: a new coordinator keeps it
		coordinator.operations().resign(new Resign("default", BY));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> nodes.stream().anyMatch((n) -> n != coordinator && n.isLeader("default")));
		await().during(INTERVAL.multipliedBy(4))
			.atMost(INTERVAL.multipliedBy(6))
			.until(() -> to.partitions("t").owned().contains(0));

		coordinator(nodes).operations().unpin(new Unpin("t", 0, BY));
		await().atMost(INTERVAL.multipliedBy(4))
			.until(() -> nodes.stream().allMatch((n) -> n.partitions("t").placement().size() == PARTITIONS));
	}

	@Test
	void aPauseMovesNothingToAJoinerUntilItIsResumed() {
		List<MembershipNode> nodes = new java.util.ArrayList<>(startThree());
		MembershipNode coordinator = coordinator(nodes);
		assertThatThrownBy(() -> coordinator.operations().pause(new Pause(Duration.ofHours(2), BY)))
			.hasMessageContaining("at most 60");
		java.time.Instant until = coordinator.operations().pause(new Pause(Duration.ofMinutes(10), BY)).pausedUntil();
		assertThat(until).isAfter(java.time.Instant.now().plusSeconds(500));
		java.util.Map<Integer, String> before = placement(coordinator);
		MembershipNode joiner = this.cluster.start("n4");
		nodes.add(joiner);
		await().atMost(Duration.ofSeconds(5)).until(() -> coordinator.liveMembers().size() == 4);
		await().during(INTERVAL.multipliedBy(6))
			.atMost(INTERVAL.multipliedBy(8))
			.until(() -> joiner.partitions("t").owned().isEmpty() && placement(coordinator).equals(before));

		coordinator.operations().resume(new Resume(BY));
		await().atMost(Duration.ofSeconds(5)).until(() -> !joiner.partitions("t").owned().isEmpty());
	}

	private static java.util.Map<Integer, String> placement(MembershipNode node) {
		return new java.util.TreeMap<>(node.partitions("t").placement());
	}

}
