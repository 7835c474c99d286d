package dev.membership.test;

import java.util.List;
import java.util.Objects;

import dev.membership.engine.MembershipNode;
import dev.membership.event.MembershipEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.spi.LeaseRecord;

import static dev.membership.test.SimulatedCluster.DEFAULT_PEER;

/**
 * What {@link SimulatedCluster#elect}, {@link SimulatedCluster#revoke} and
 * {@link SimulatedCluster#electOther} do to a group's leadership, each through what
 * causes it in production (a resign, a cut-off database, a lost lease), with the database
 * gated so that only the node meant to take the lease can.
 */
final class SimulatedLeadership {

	/** Who asks for the resigns that simulate a lost leadership. */
	private static final Requester BY = Requester.of("membership-test");

	private final SimulatedCluster cluster;

	private final SimulatedDatabase database;

	private final PinnedPlacement placement;

	private final SimulatedPeers peers;

	SimulatedLeadership(SimulatedCluster cluster, SimulatedDatabase database, PinnedPlacement placement,
			SimulatedPeers peers) {
		this.cluster = cluster;
		this.database = database;
		this.placement = placement;
		this.peers = peers;
	}

	LeadershipTerm elect(String group) {
		MembershipNode node = this.cluster.runningNode();
		node.competeFor(group);
		this.placement.pin(group, node.nodeId());
		this.peers.forEach((id, peer) -> {
			if (peer.isLeader(group)) {
				peer.operations().resign(new Resign(group, BY));
			}
		});
		this.database.gate(group, SimulatedDatabase.UNDER_TEST);
		try {
			this.cluster.runUntil("the node under test leads '" + group + "'", () -> takesOver(node, group));
		}
		finally {
			this.database.openGate();
		}
		return node.currentTerm(group).orElseThrow();
	}

	void revoke(String group, RevocationReason reason) {
		Objects.requireNonNull(reason, "reason");
		MembershipNode node = this.cluster.runningNode();
		if (!node.isLeader(group)) {
			throw new IllegalStateException(
					"The node under test does not lead '" + group + "': elect(\"" + group + "\") first");
		}
		if (reason == RevocationReason.SHUTDOWN) {
			throw new IllegalArgumentException("SHUTDOWN comes from stopping the node: call node().stop(...) or close "
					+ "the application context");
		}
		long epoch = node.currentTerm(group).map(LeadershipTerm::epoch).orElse(0L);
		int seen = this.cluster.events().size();
		MembershipNode peer = this.cluster.peer(DEFAULT_PEER);
		peer.competeFor(group);
		try {
			this.database.gate(group, DEFAULT_PEER);
			switch (reason) {
				case RESIGNED -> {
					this.placement.pin(group, DEFAULT_PEER);
					node.operations().resign(new Resign(group, BY));
				}
				// the database is out of reach until the node's own deadline has passed
				case RENEWAL_DEADLINE_PASSED -> this.database.cutOff(true);
				// the lease goes behind the node's back (an operator, a clock jump): the
				// node finds out at its next renewal, and the peer, not the node, takes
				// the lease
				case LEASE_LOST -> this.database.data().setLeaseExpiry(group, LeaseRecord.RELEASED);
				default -> throw new IllegalArgumentException(reason.toString());
			}
			// the peer takes a released lease at once, before the node's next tick could
			// try
			this.cluster.runUntil("the node under test is revoked from '" + group + "'", () -> {
				takesOver(peer, group);
				return revokedSince(seen, group, epoch) != null;
			});
			LeaderRevokedEvent revoked = revokedSince(seen, group, epoch);
			if (revoked.reason() != reason) {
				throw new IllegalStateException(
						"The node was revoked from '" + group + "' for " + revoked.reason() + ", not " + reason);
			}
			// from now on the coordinator places the group on the peer too (pinned only
			// now, so that a move to the peer cannot come before the cause the test asked
			// for)
			this.placement.pin(group, DEFAULT_PEER);
			// a node cut off stays so until the lease has expired in the database and the
			// peer has it
			this.cluster.runUntil(DEFAULT_PEER + " takes '" + group + "' over", () -> takesOver(peer, group));
			this.database.cutOff(false);
			this.cluster.runUntil(DEFAULT_PEER + " leads '" + group + "' and the node under test knows it",
					() -> peer.isLeader(group) && isLeaderSeen(group, DEFAULT_PEER));
		}
		finally {
			this.database.cutOff(false);
			this.database.openGate();
		}
	}

	LeaderInfo electOther(String group, String nodeId) {
		MembershipNode node = this.cluster.runningNode();
		if (node.nodeId().equals(nodeId)) {
			throw new IllegalArgumentException(nodeId + " is the node under test: use elect(\"" + group + "\")");
		}
		MembershipNode peer = this.cluster.peer(nodeId);
		peer.competeFor(group);
		this.placement.pin(group, nodeId);
		node.operations().resign(new Resign(group, BY));
		this.peers.forEach((id, other) -> {
			if (!id.equals(nodeId) && other.isLeader(group)) {
				other.operations().resign(new Resign(group, BY));
			}
		});
		this.database.gate(group, nodeId);
		try {
			this.cluster.runUntil(nodeId + " leads '" + group + "' and the node under test knows it",
					() -> takesOver(peer, group) && isLeaderSeen(group, nodeId));
		}
		finally {
			this.database.openGate();
		}
		return node.leader(group).orElseThrow();
	}

	private boolean takesOver(MembershipNode candidate, String group) {
		return this.peers.takesOver(candidate,
				(candidate == this.cluster.nodeIfAny()) ? SimulatedDatabase.UNDER_TEST : candidate.nodeId(), group);
	}

	private boolean isLeaderSeen(String group, String nodeId) {
		return this.cluster.node().leader(group).map(LeaderInfo::nodeId).filter(nodeId::equals).isPresent();
	}

	private LeaderRevokedEvent revokedSince(int index, String group, long epoch) {
		List<MembershipEvent> all = this.cluster.events();
		for (int i = index; i < all.size(); i++) {
			if (all.get(i) instanceof LeaderRevokedEvent revoked && revoked.group().equals(group)
					&& revoked.epoch() == epoch) {
				return revoked;
			}
		}
		return null;
	}

}
