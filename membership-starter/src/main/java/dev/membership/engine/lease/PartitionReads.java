package dev.membership.engine.lease;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.placement.Assignments;
import dev.membership.spi.LeaseRecord;

/**
 * Which partition leases a node's read of the interval brings, and what it does with
 * them: the ones it renewed this interval (to confirm the renewals) and the ones placed
 * on it that it does not own yet (to learn when their leases expire, so that it takes
 * them at that instant). So a node reads the partitions it has or is about to have, never
 * the others: across the cluster, at most the partition count per interval.
 */
public final class PartitionReads {

	private final ThisNode self;

	private final Assignments assignments;

	private final Renewals renewals;

	public PartitionReads(ThisNode self, Assignments assignments, Renewals renewals) {
		this.self = self;
		this.assignments = assignments;
		this.renewals = renewals;
	}

	public Set<String> names() {
		Set<String> names = new TreeSet<>(this.renewals.toConfirm());
		for (GroupElection unit : this.self.groups()) {
			if (unit.unit().isPartition() && !unit.isLeader()
					&& this.self.nodeId().equals(this.assignments.owner(unit.unit()))) {
				names.add(unit.name());
			}
		}
		return names;
	}

	public void read(Map<String, LeaseRecord> leases) {
		this.renewals.confirm(leases);
	}

}
