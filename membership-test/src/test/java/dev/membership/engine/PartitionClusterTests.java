package dev.membership.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.event.MembershipEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.PartitionAssignedEvent;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.operations.Release;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Partitioned groups and placed leaderships on real threads and the test kit's in-memory
 * store: the coordinator spreads them, every partition has one owner, a graceful stop
 * hands its partitions over after they drained, and no two nodes ever believe they own
 * one partition (every belief recorded on one clock).
 */
class PartitionClusterTests {

	private static final Requester BY = Requester.of("test");

	private static final int PARTITIONS = 8;

	private final TestCluster cluster = InMemoryStores.cluster()
		.customize((settings) -> settings.partitions("t", PARTITIONS).groups(Set.of("a", "b", "c", "d", "e")));

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	/**
	 * Owner of each partition as the nodes believe it: fails on a partition believed by
	 * two.
	 */
	private Map<Integer, String> owners() {
		Map<Integer, String> owners = new HashMap<>();
		for (MembershipNode node : this.cluster.running()) {
			for (LeadershipTerm term : node.ownedTerms("t")) {
				String before = owners.put(term.partition().getAsInt(), node.nodeId());
				assertThat(before).as("partition %s owned twice", term.partition()).isNull();
			}
		}
		return owners;
	}

	private static int spread(Map<Integer, String> owners, List<MembershipNode> nodes) {
		Map<String, Integer> counts = new HashMap<>();
		nodes.forEach((n) -> counts.put(n.nodeId(), 0));
		owners.values().forEach((o) -> counts.merge(o, 1, Integer::sum));
		return counts.values().stream().mapToInt(Integer::intValue).max().orElse(0)
				- counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
	}

	private boolean balanced() {
		Map<Integer, String> owners = owners();
		return owners.size() == PARTITIONS && spread(owners, this.cluster.running()) <= 1;
	}

	@Test
	void partitionsSpreadOverTheMembersAndMoveOnlyAsFarAsAJoinOrALeaveNeeds() {
		this.cluster.start("n1");
		await().atMost(LEASE.multipliedBy(10)).until(() -> owners().size() == PARTITIONS);
		assertThat(owners().values()).containsOnly("n1");
		this.cluster.start("n2");
		this.cluster.start("n3");
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
		Map<Integer, String> before = owners();
		assertThat(this.cluster.node("n1").partitions("t").placement()).isEqualTo(before);

		// a graceful stop: only n3's partitions move, and each reached its next owner
		// after n3 let it go
		MembershipNode leaving = this.cluster.node("n3");
		int[] releasesBefore = this.cluster.store("n3").releaseCalls();
		int eventsBefore = this.cluster.events("n3").size();
		leaving.stop(Duration.ofSeconds(5));
		// the goodbye released every lease of n3 in one call
		int[] releases = this.cluster.store("n3").releaseCalls();
		assertThat(releases[1] - releasesBefore[1]).as("releaseAll calls").isEqualTo(1);
		assertThat(releases[0] - releasesBefore[0]).as("single releases").isZero();
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
		Map<Integer, String> after = owners();
		before.forEach((partition, owner) -> {
			if (!owner.equals("n3")) {
				assertThat(after.get(partition)).as("partition %d", partition).isEqualTo(owner);
			}
		});
		// one revocation per partition it had, said when its drain began
		List<MembershipEvent> events = List.copyOf(this.cluster.events("n3"));
		assertThat(events.subList(eventsBefore, events.size())).filteredOn(PartitionRevokedEvent.class::isInstance)
			.extracting((e) -> ((PartitionRevokedEvent) e).reason())
			.hasSize((int) before.values().stream().filter("n3"::equals).count())
			.containsOnly(RevocationReason.SHUTDOWN);
	}

	@Test
	void theLeadershipsOfPlainGroupsSpreadToo() {
		this.cluster.start("n1");
		await().atMost(LEASE.multipliedBy(10))
			.until(() -> this.cluster.node("n1")
				.groups()
				.stream()
				.filter((g) -> !g.equals("t"))
				.allMatch((g) -> this.cluster.node("n1").isLeader(g)));
		this.cluster.start("n2");
		this.cluster.start("n3");
		// default, a, b, c, d, e: six leaderships over three nodes, two each
		await().atMost(LEASE.multipliedBy(20)).until(() -> {
			Map<String, Integer> led = new HashMap<>();
			Set<String> groups = new HashSet<>(List.of("default", "a", "b", "c", "d", "e"));
			for (MembershipNode node : this.cluster.running()) {
				for (String group : groups) {
					if (node.isLeader(group)) {
						led.merge(node.nodeId(), 1, Integer::sum);
					}
				}
			}
			return led.values().stream().mapToInt(Integer::intValue).sum() == 6
					&& new ArrayList<>(led.values()).stream().allMatch((c) -> c == 2);
		});
	}

	@Test
	void aJoinMovesEachPartitionOnceStraightToTheNewNode() {
		this.cluster.withNotices();
		this.cluster.start("n1");
		this.cluster.start("n2");
		this.cluster.start("n3");
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
		await().atMost(Duration.ofSeconds(5)).until(this::eventsCaughtUp);
		Map<String, Integer> before = new HashMap<>();
		List.of("n1", "n2", "n3").forEach((n) -> before.put(n, assignedTo(n)));
		this.cluster.start("n4");
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
		await().atMost(Duration.ofSeconds(5)).until(this::eventsCaughtUp);
		// the release notices reach every node: only the node the placement names takes a
		// partition, so no partition lands on another node on its way to n4
		before.forEach(
				(n, count) -> assertThat(assignedTo(n))
					.as("%s: %s", n,
							List.of("n1", "n2", "n3", "n4")
								.stream()
								.map((x) -> x + "="
										+ this.cluster.events(x)
											.stream()
											.filter((e) -> e.getClass().getSimpleName().matches("Partition.*|Member.*"))
											.toList())
								.toList())
					.isEqualTo(count));
		assertThat(assignedTo("n4")).isEqualTo(this.cluster.node("n4").partitions("t").owned().size()).isPositive();
	}

	private int assignedTo(String nodeId) {
		return (int) this.cluster.events(nodeId).stream().filter(PartitionAssignedEvent.class::isInstance).count();
	}

	/**
	 * Whether every node's events caught up with what it owns: a node owns a partition as
	 * soon as it is acquired, and the event reaches the application's lane after.
	 */
	private boolean eventsCaughtUp() {
		return this.cluster.running().stream().allMatch((node) -> {
			long revoked = this.cluster.events(node.nodeId())
				.stream()
				.filter(PartitionRevokedEvent.class::isInstance)
				.count();
			return assignedTo(node.nodeId()) - revoked == node.partitions("t").owned().size();
		});
	}

	@Test
	void ownershipComesWithEventsAndEpochsThatOnlyGrow() {
		this.cluster.start("n1");
		await().atMost(LEASE.multipliedBy(10)).until(() -> owners().size() == PARTITIONS);
		this.cluster.start("n2");
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
		await().atMost(Duration.ofSeconds(5)).until(this::eventsCaughtUp);
		List<PartitionAssignedEvent> assigned = this.cluster.events("n2")
			.stream()
			.filter(PartitionAssignedEvent.class::isInstance)
			.map(PartitionAssignedEvent.class::cast)
			.toList();
		assertThat(assigned).hasSize(PARTITIONS / 2).allSatisfy((e) -> assertThat(e.epoch()).isGreaterThan(1));
		for (LeadershipTerm term : this.cluster.node("n2").ownedTerms("t")) {
			assertThat(term.group()).isEqualTo("t");
			assertThat(term.epoch()).isEqualTo(assigned.stream()
				.filter((e) -> e.partition() == term.partition().getAsInt())
				.findFirst()
				.orElseThrow()
				.epoch());
		}
	}

	@Test
	void aPartitionIsReleasedOnItsOwnAndTheGroupAsAWholeCannotBeResigned() {
		MembershipNode n1 = this.cluster.start("n1");
		MembershipNode n2 = this.cluster.start("n2");
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
		int partition = n1.partitions("t").owned().get(0);
		long epoch = n1.partitionTerm("t", partition).orElseThrow().epoch();
		assertThat(n1.operations().release(new Release("t", partition, BY)).resigned()).isTrue();
		assertThat(n1.partitions("t").owned()).doesNotContain(partition);
		assertThat(n2.operations().release(new Release("t", partition, BY)).resigned()).as("not n2's").isFalse();
		// handed over (drained, released, taken again under a greater epoch, here or
		// there)
		await().atMost(LEASE.multipliedBy(10)).until(() -> ownerEpoch(partition) > epoch);
		assertThat(this.cluster.events("n1"))
			.anySatisfy((event) -> assertThat(event).isInstanceOfSatisfying(PartitionRevokedEvent.class, (revoked) -> {
				assertThat(revoked.partition()).isEqualTo(partition);
				assertThat(revoked.reason()).isEqualTo(RevocationReason.RESIGNED);
			}));
		assertThatIllegalArgumentException().isThrownBy(() -> n1.operations().resign(new Resign("t", BY)))
			.withMessageContaining("ClusterOperations.release")
			.withMessageContaining("POST /actuator/cluster/release {\"group\": \"t\", \"partition\": <n>}");
		assertThatIllegalArgumentException().isThrownBy(() -> n1.operations().resign(new Resign("t#" + partition, BY)))
			.withMessageContaining("does not compete for a group 't#" + partition + "'")
			.withMessageContaining("ClusterOperations.release");
		assertThatIllegalArgumentException().isThrownBy(() -> n1.operations().release(new Release("t", 8, BY)))
			.withMessageContaining("partitions 0 to 7, not 8");
		assertThatIllegalArgumentException().isThrownBy(() -> n1.operations().release(new Release("a", 0, BY)))
			.withMessageContaining("has no partitioned group 'a'");
		assertThatIllegalArgumentException().isThrownBy(() -> n1.operations().resign(new Resign("reprots", BY)))
			.withMessageContaining("does not compete for a group 'reprots'")
			.withMessageContaining("[a, b, c, d, default, e]");
		assertThatIllegalArgumentException().isThrownBy(() -> n1.competeFor("t"))
			.withMessageContaining("partitioned group");
	}

	private long ownerEpoch(int partition) {
		for (MembershipNode node : this.cluster.running()) {
			Optional<LeadershipTerm> term = node.partitionTerm("t", partition);
			if (term.isPresent()) {
				return term.get().epoch();
			}
		}
		return Long.MIN_VALUE;
	}

}
