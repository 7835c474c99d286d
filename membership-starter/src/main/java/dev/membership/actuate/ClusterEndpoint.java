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

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.membership.Membership;
import dev.membership.engine.MembershipSettings;
import dev.membership.leadership.LeaderInfo;

/**
 * {@code /actuator/cluster}: the cluster as this node sees it (read), and a way for an operator to make this node
 * resign a group (write). Answered from memory; no database call.
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
		for (String group : new TreeSet<>(this.membership.groups())) {
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
				groups, members);
	}

	/** Makes this node resign {@code group} (default: {@code default}). */
	@WriteOperation
	public ClusterDescriptor.Resignation resign(@Nullable String group) {
		String target = (group != null && !group.isBlank()) ? group : MembershipSettings.DEFAULT_GROUP;
		boolean wasLeader = this.membership.isLeader(target);
		this.membership.resign(target);
		return new ClusterDescriptor.Resignation(target, wasLeader);
	}

	private static String iso(Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

}
