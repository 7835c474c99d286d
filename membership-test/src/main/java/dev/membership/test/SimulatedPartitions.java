package dev.membership.test;

import dev.membership.engine.MembershipNode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.Partitions;

/**
 * A partitioned group of a {@link SimulatedCluster}'s node under test: a test places a
 * partition on the node, or moves it away, as the cluster's coordinator would, and the
 * hand-over happens as in production (the drain first, then the release, then the next
 * owner with a new epoch), in virtual time.
 */
public final class SimulatedPartitions {

	private final SimulatedCluster cluster;

	private final String group;

	SimulatedPartitions(SimulatedCluster cluster, String group) {
		this.cluster = cluster;
		this.group = group;
	}

	/**
	 * Places {@code partition} on the node under test and returns its term once the node
	 * owns it: a peer that owns it hands it over first, so the node takes it with a new
	 * epoch. Does nothing more when the node owns it already.
	 */
	public LeadershipTerm assign(int partition) {
		MembershipNode node = this.cluster.runningNode();
		check(node, partition);
		this.cluster.pins().pin(this.group, partition, node.nodeId());
		this.cluster.runUntil("the node under test owns partition " + partition + " of '" + this.group + "'",
				() -> node.partitionTerm(this.group, partition).filter((term) -> !term.isEnding()).isPresent());
		return node.partitionTerm(this.group, partition).orElseThrow();
	}

	/**
	 * Moves {@code partition} from the node under test to a peer
	 * ({@value SimulatedCluster#DEFAULT_PEER}), as a rebalance does: the node gets a
	 * {@link PartitionRevokedEvent} (reason {@code MOVED}) when its drain begins, its
	 * running work of the partition is waited for (up to the drain timeout), then it
	 * releases the partition and the peer takes it. The node stays without it until
	 * {@link #assign}.
	 */
	public void revoke(int partition) {
		MembershipNode node = this.cluster.runningNode();
		check(node, partition);
		if (node.partitionTerm(this.group, partition).isEmpty()) {
			throw new IllegalStateException("The node under test does not own partition " + partition + " of '"
					+ this.group + "': assign(" + partition + ") first");
		}
		MembershipNode peer = this.cluster.peer(SimulatedCluster.DEFAULT_PEER);
		this.cluster.pins().pin(this.group, partition, SimulatedCluster.DEFAULT_PEER);
		this.cluster.runUntil(
				SimulatedCluster.DEFAULT_PEER + " owns partition " + partition + " of '" + this.group + "'",
				() -> node.partitionTerm(this.group, partition).isEmpty()
						&& peer.partitionTerm(this.group, partition).isPresent());
	}

	private void check(MembershipNode node, int partition) {
		Partitions partitions = node.partitions(this.group);
		if (partition < 0 || partition >= partitions.count()) {
			throw new IllegalArgumentException("Group '" + this.group + "' has partitions 0 to "
					+ (partitions.count() - 1) + ", not " + partition);
		}
	}

}
