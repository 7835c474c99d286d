package dev.membership.actuate;

import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.membership.Membership;
import dev.membership.engine.MembershipSettings;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.Partitions;

/**
 * {@code /actuator/cluster}: the cluster as this node sees it (read), and a way for an operator to make this node
 * resign a group or release a partition (write). Answered from memory; no database call.
 */
@Endpoint(id = "cluster")
public class ClusterEndpoint {

	private final Membership membership;

	public ClusterEndpoint(Membership membership) {
		this.membership = membership;
	}

	@ReadOperation
	public ClusterDescriptor cluster() {
		Map<String, ClusterDescriptor.Group> groups = new LinkedHashMap<>();
		Set<String> leaders = new HashSet<>();
		Set<String> partitioned = this.membership.partitionedGroups();
		Map<String, ClusterDescriptor.PartitionedGroup> partitions = new LinkedHashMap<>();
		for (String group : new TreeSet<>(partitioned)) {
			partitions.put(group, partitioned(this.membership.partitions(group)));
		}
		for (String group : new TreeSet<>(this.membership.groups())) {
			if (partitioned.contains(group)) {
				continue;
			}
			Optional<LeaderInfo> leader = this.membership.leader(group);
			leader.ifPresent((info) -> leaders.add(info.nodeId()));
			groups.put(group, leader
				.map((info) -> new ClusterDescriptor.Group(info.nodeId(), info.epoch(), iso(info.leaseExpiresAt())))
				.orElseGet(() -> new ClusterDescriptor.Group(null, null, null)));
		}
		ClusterDescriptor.Leader leader = this.membership.leader(MembershipSettings.DEFAULT_GROUP)
			.map((info) -> new ClusterDescriptor.Leader(info.nodeId(), info.address(), info.epoch(),
					iso(info.leaseExpiresAt())))
			.orElse(null);
		List<ClusterDescriptor.MemberDescriptor> members = this.membership.members()
			.stream()
			.map((m) -> new ClusterDescriptor.MemberDescriptor(m.nodeId(), m.address(), m.live() && leaders.contains(m.nodeId()),
					m.live(), iso(m.lastHeartbeat()), iso(m.startedAt())))
			.toList();
		return new ClusterDescriptor(
				new ClusterDescriptor.Self(this.membership.nodeId(), this.membership.advertisedAddress()), leader,
				groups, partitions, members);
	}

	private static ClusterDescriptor.PartitionedGroup partitioned(Partitions partitions) {
		Map<String, ClusterDescriptor.PartitionOwner> byPartition = new LinkedHashMap<>();
		Map<Integer, LeaderInfo> known = partitions.owners();
		Map<Integer, String> placed = partitions.placement();
		for (int p = 0; p < partitions.count(); p++) {
			LeaderInfo owner = known.get(p);
			ClusterDescriptor.PartitionOwner shown = (owner != null)
					? new ClusterDescriptor.PartitionOwner(owner.nodeId(), owner.epoch())
					: (placed.get(p) != null) ? new ClusterDescriptor.PartitionOwner(placed.get(p), null) : null;
			if (shown != null) {
				byPartition.put(Integer.toString(p), shown);
			}
		}
		return new ClusterDescriptor.PartitionedGroup(partitions.count(), byPartition);
	}

	/**
	 * Makes this node resign {@code group} (default: {@code default}), or release {@code partition} of a partitioned
	 * group; a group or partition it cannot resign is a bad request that says why.
	 */
	@WriteOperation
	public ClusterDescriptor.Resignation resign(@Nullable String group, @Nullable Integer partition) {
		String target = (group != null && !group.isBlank()) ? group : MembershipSettings.DEFAULT_GROUP;
		try {
			if (partition != null) {
				return new ClusterDescriptor.Resignation(target, partition,
						this.membership.partitions(target).release(partition));
			}
			boolean wasLeader = this.membership.isLeader(target);
			this.membership.resign(target);
			return new ClusterDescriptor.Resignation(target, null, wasLeader);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	private static String iso(Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

}
