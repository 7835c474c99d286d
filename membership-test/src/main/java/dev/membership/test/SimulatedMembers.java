package dev.membership.test;

import java.time.Duration;
import java.util.Optional;

import dev.membership.engine.MembershipNode;
import dev.membership.liveness.Member;

/**
 * What {@link SimulatedCluster#addMember}, {@link SimulatedCluster#removeMember} and
 * {@link SimulatedCluster#crashMember} do: peers that start, leave or crash, each call
 * returning once the node under test sees the change.
 */
final class SimulatedMembers {

	private final SimulatedCluster cluster;

	private final SimulatedPeers peers;

	private final Duration realTimeout;

	SimulatedMembers(SimulatedCluster cluster, SimulatedPeers peers, Duration realTimeout) {
		this.cluster = cluster;
		this.peers = peers;
		this.realTimeout = realTimeout;
	}

	Member add(String nodeId) {
		this.cluster.runningNode();
		this.cluster.peer(nodeId);
		this.cluster.runUntil(nodeId + " is a live member for the node under test",
				() -> liveMember(nodeId).isPresent());
		return liveMember(nodeId).orElseThrow();
	}

	void remove(String nodeId) {
		MembershipNode peer = this.peers.existing(nodeId);
		peer.stop(this.realTimeout);
		this.peers.remove(nodeId);
		this.cluster.runUntil(nodeId + " has left for the node under test",
				() -> this.cluster.node().members().stream().noneMatch((m) -> m.nodeId().equals(nodeId)));
	}

	void crash(String nodeId) {
		this.peers.existing(nodeId).halt();
		this.peers.remove(nodeId);
		this.cluster.runUntil(nodeId + " is no longer live for the node under test",
				() -> liveMember(nodeId).isEmpty());
	}

	private Optional<Member> liveMember(String nodeId) {
		return this.cluster.node().liveMembers().stream().filter((m) -> m.nodeId().equals(nodeId)).findFirst();
	}

}
