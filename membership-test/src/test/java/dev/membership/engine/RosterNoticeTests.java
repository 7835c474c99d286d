package dev.membership.engine;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.TestCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The keeper's roster notice: the keeper tells the nodes a new roster moves partitions
 * for (those giving some to a newcomer, and the newcomer), and a node told of a roster it
 * has not read reads it at once, out of turn, instead of at its next interval; without
 * notices no node does.
 */
class RosterNoticeTests {

	private static final int PARTITIONS = 12;

	/**
	 * Reads every second, not every 150 ms: a node's own read must not come between the
	 * keeper's write and its notice (then the node has that roster already, and rightly
	 * reads nothing more).
	 */
	private final TestCluster cluster = InMemoryStores.cluster()
		.customize((settings) -> settings.partitions("t", PARTITIONS)
			.renewalInterval(Duration.ofSeconds(1))
			.livenessWindow(Duration.ofSeconds(2))
			.leaseDuration(Duration.ofSeconds(3))
			.maxMovesPercent(100));

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void theKeeperTellsTheNodesAJoinMovesPartitionsFor() {
		Map<String, Long> outOfTurn = join(true);
		// told, each of them; whether a node then reads out of turn depends on whether
		// its own read came first
		assertThat(outOfTurn.keySet())
			.allSatisfy((node) -> assertThat(this.cluster.rosterNoticesTo(node)).as(node).isPositive());
	}

	@Test
	void aNodeToldOfARosterItHasNotReadReadsItAtOnceAndOfOneItHasReadsNothing() {
		this.cluster.withNotices();
		List.of("n1", "n2").forEach(this.cluster::start);
		await().atMost(Duration.ofSeconds(30)).until(this::balanced);
		String follower = this.cluster.running()
			.stream()
			.filter((n) -> !n.isLeader(MembershipSettings.DEFAULT_GROUP))
			.findFirst()
			.orElseThrow()
			.nodeId();
		long before = this.cluster.store(follower).rosterOnlyReads();
		this.cluster.receiver(follower).rosterChanged(1); // it has read a later one
		await().during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(1))
			.until(() -> this.cluster.store(follower).rosterOnlyReads() == before);
		this.cluster.receiver(follower).rosterChanged(Long.MAX_VALUE);
		await().atMost(Duration.ofMillis(500)).until(() -> this.cluster.store(follower).rosterOnlyReads() > before);
		// once: a notice makes it read at once, not at every tick after it
		await().during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(1))
			.until(() -> this.cluster.store(follower).rosterOnlyReads() == before + 1);
	}

	@Test
	void withoutNoticesTheyWaitForTheirNextRead() {
		Map<String, Long> outOfTurn = join(false);
		assertThat(outOfTurn).as("roster-only reads since the join, by node").allSatisfy((node, reads) -> {
			assertThat(reads).as(node).isZero();
		});
	}

	/**
	 * Three nodes, then a fourth; returns, for each node other than the keeper that gave
	 * it partitions, and for the newcomer, how many times it read the roster alone since
	 * the fourth started.
	 */
	private Map<String, Long> join(boolean notices) {
		if (notices) {
			this.cluster.withNotices();
		}
		List.of("n1", "n2", "n3").forEach(this.cluster::start);
		await().atMost(Duration.ofSeconds(30)).until(this::balanced);
		String keeper = this.cluster.leader().orElseThrow().nodeId();
		Map<String, Integer> ownedBefore = new HashMap<>();
		Map<String, Long> readsBefore = new HashMap<>();
		for (MembershipNode node : this.cluster.running()) {
			ownedBefore.put(node.nodeId(), node.partitions("t").owned().size());
			readsBefore.put(node.nodeId(), this.cluster.store(node.nodeId()).rosterOnlyReads());
		}
		this.cluster.start("n4");
		await().atMost(Duration.ofSeconds(30)).until(this::balanced);
		Map<String, Long> outOfTurn = new HashMap<>();
		for (MembershipNode node : this.cluster.running()) {
			String id = node.nodeId();
			boolean gave = ownedBefore.containsKey(id) && node.partitions("t").owned().size() < ownedBefore.get(id);
			if (!id.equals(keeper) && (gave || id.equals("n4"))) {
				outOfTurn.put(id, this.cluster.store(id).rosterOnlyReads() - readsBefore.getOrDefault(id, 0L));
			}
		}
		assertThat(outOfTurn).as("givers other than the keeper, and the newcomer").hasSizeGreaterThan(1);
		return outOfTurn;
	}

	private boolean balanced() {
		Map<String, Integer> counts = new HashMap<>();
		int owned = 0;
		for (MembershipNode node : this.cluster.running()) {
			int n = node.partitions("t").owned().size();
			counts.put(node.nodeId(), n);
			owned += n;
		}
		int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
		return owned == PARTITIONS && max - min <= 1;
	}

}
