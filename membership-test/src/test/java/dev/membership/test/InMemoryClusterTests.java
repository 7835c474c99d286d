package dev.membership.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.engine.MembershipNode;
import dev.membership.spi.MembershipSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Nodes of the public API on one in-memory "database": elections, the roster and
 * hand-overs, no MongoDB.
 */
class InMemoryClusterTests {

	private final InMemoryMembershipStore database = new InMemoryMembershipStore();

	private final List<MembershipNode> nodes = new ArrayList<>();

	@AfterEach
	void halt() {
		this.nodes.forEach(MembershipNode::halt);
	}

	private MembershipNode start(String id) {
		MembershipSettings settings = MembershipSettings.builder(id)
			.renewalInterval(Duration.ofMillis(100))
			.leaseDuration(Duration.ofMillis(400))
			.livenessWindow(Duration.ofMillis(250))
			.build();
		MembershipNode node = MembershipNode.builder(settings, InMemoryMembershipStore.sharing(this.database))
			.advertisedAddress("127.0.0.1")
			.build();
		node.start();
		this.nodes.add(node);
		return node;
	}

	@Test
	void oneLeaderEveryMemberListedAndAGracefulStopHandsOver() {
		List<MembershipNode> three = List.of(start("a"), start("b"), start("c"));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> three.stream().filter((n) -> n.isLeader("default")).count() == 1
					&& three.stream().allMatch((n) -> n.liveMembers().size() == 3));
		MembershipNode leader = three.stream().filter((n) -> n.isLeader("default")).findFirst().orElseThrow();
		long epoch = leader.currentTerm("default").orElseThrow().epoch();
		leader.stop(Duration.ofSeconds(2));
		List<MembershipNode> others = three.stream().filter((n) -> n != leader).toList();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> others.stream().filter((n) -> n.isLeader("default")).count() == 1
					&& others.stream().allMatch((n) -> n.liveMembers().size() == 2));
		MembershipNode next = others.stream().filter((n) -> n.isLeader("default")).findFirst().orElseThrow();
		assertThat(next.currentTerm("default").orElseThrow().epoch()).isGreaterThan(epoch);
	}

}
