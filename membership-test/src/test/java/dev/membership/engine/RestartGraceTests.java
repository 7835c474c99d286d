package dev.membership.engine;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.LEASE;
import static dev.membership.testsupport.TestCluster.LIVENESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The restart grace: a member that stops gracefully keeps its place; its partitions wait,
 * unowned, for it to come back under the same node id, and move only once it has been
 * gone longer than the grace. Every belief recorded: no two nodes ever own one partition.
 */
class RestartGraceTests {

	private static final int PARTITIONS = 12;

	private TestCluster cluster;

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	private void start(Duration grace) {
		this.cluster = InMemoryStores.cluster()
			.withNotices()
			.customize((settings) -> settings.partitions("t", PARTITIONS).restartGrace(grace));
		List.of("n1", "n2", "n3").forEach(this.cluster::start);
		await().atMost(LEASE.multipliedBy(20)).until(this::balanced);
	}

	@Test
	void aMemberBackWithinTheGraceFindsItsPartitionsWhereItLeftThemAndNothingMoves() {
		start(Duration.ofSeconds(5));
		Map<Integer, String> before = owners();
		String leaver = notKeeper();
		this.cluster.node(leaver).stop(Duration.ofSeconds(5));
		// well past the liveness window: the others see it gone, and still take none of
		// its partitions
		await().during(LIVENESS.multipliedBy(3))
			.atMost(LIVENESS.multipliedBy(6))
			.until(() -> owners().values().stream().noneMatch(leaver::equals)
					&& owners().size() == PARTITIONS - countOf(before, leaver));
		this.cluster.start(leaver);
		await().atMost(LEASE.multipliedBy(20)).until(() -> owners().equals(before));
	}

	@Test
	void pastTheGraceItsPartitionsMoveAsAfterAnyDeparture() {
		start(Duration.ofMillis(1500));
		String leaver = notKeeper();
		this.cluster.node(leaver).stop(Duration.ofSeconds(5));
		await().atMost(LEASE.multipliedBy(20)).until(() -> owners().size() == PARTITIONS && balanced());
		assertThat(owners().values()).doesNotContain(leaver);
	}

	private String notKeeper() {
		return this.cluster.running()
			.stream()
			.filter((n) -> !n.isLeader(MembershipSettings.DEFAULT_GROUP))
			.findFirst()
			.orElseThrow()
			.nodeId();
	}

	private static long countOf(Map<Integer, String> owners, String node) {
		return owners.values().stream().filter(node::equals).count();
	}

	/** Owner of each partition as the running nodes believe it. */
	private Map<Integer, String> owners() {
		Map<Integer, String> owners = new HashMap<>();
		for (MembershipNode node : this.cluster.running()) {
			for (LeadershipTerm term : node.ownedTerms("t")) {
				owners.put(term.partition().getAsInt(), node.nodeId());
			}
		}
		return owners;
	}

	private boolean balanced() {
		Map<String, Integer> counts = new HashMap<>();
		this.cluster.running().forEach((n) -> counts.put(n.nodeId(), n.partitions("t").owned().size()));
		int max = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		int min = counts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
		return owners().size() == PARTITIONS && max - min <= 1;
	}

}
