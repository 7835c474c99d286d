package dev.membership.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.convert.DurationStyle;

import dev.membership.Membership;
import dev.membership.engine.MembershipSettings;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.Partitions;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;

/**
 * {@code /actuator/cluster}: the cluster as this node sees it (read, from memory: no database call), the cluster's run
 * history ({@code /actuator/cluster/runs}, one read of the history), and a way for an operator to make this node
 * resign a group or release a partition (write).
 */
@Endpoint(id = "cluster")
public class ClusterEndpoint {

	/** The newest runs a query returns when it names no limit. */
	static final int DEFAULT_LIMIT = 100;

	private final Membership membership;

	private final @Nullable RunHistoryStore history;

	public ClusterEndpoint(Membership membership) {
		this(membership, null);
	}

	/** With {@code history}, {@code GET /actuator/cluster/runs} reads the cluster's run history. */
	public ClusterEndpoint(Membership membership, @Nullable RunHistoryStore history) {
		this.membership = membership;
		this.history = history;
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
		String self = this.membership.nodeId();
		Instant ownHeartbeat = ownHeartbeat();
		Instant checked = this.membership.livenessCheckedAt().orElse(null);
		List<ClusterDescriptor.MemberDescriptor> members = this.membership.members()
			.stream()
			.map((m) -> new ClusterDescriptor.MemberDescriptor(m.nodeId(), m.address(),
					m.live() && leaders.contains(m.nodeId()), m.live(),
					iso(m.nodeId().equals(self) ? ownHeartbeat : checked),
					m.nodeId().equals(self) ? iso(ownHeartbeat) : null, iso(m.startedAt())))
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
	 * {@code /actuator/cluster/runs}: the cluster's runs, newest first, as the run history has them (one database
	 * read); every filter optional, {@code since} an ISO-8601 instant, {@code limit} 1 to 1000 (100 by default).
	 * Null (404) for any other path.
	 * @throws InvalidEndpointRequestException for a filter that cannot be read, or when this node keeps no history
	 */
	@ReadOperation
	public @Nullable RunHistoryDescriptor runs(@Selector String path, @Nullable String job, @Nullable String group,
			@Nullable Integer partition, @Nullable String node, @Nullable String since, @Nullable Integer limit) {
		if (!"runs".equals(path)) {
			return null;
		}
		RunHistoryStore store = this.history;
		if (store == null) {
			String why = "This node keeps no run history (membership.history.enabled=false, or a store without one)";
			throw new InvalidEndpointRequestException(why, why);
		}
		RunQuery query;
		try {
			query = new RunQuery(blankToNull(job), blankToNull(group), partition, blankToNull(node),
					(since != null && !since.isBlank()) ? Instant.parse(since.trim()) : null,
					(limit != null) ? limit : DEFAULT_LIMIT);
		}
		catch (IllegalArgumentException | DateTimeParseException ex) {
			String why = "Cannot read the query: " + ex.getMessage() + " (since is an ISO-8601 instant such as "
					+ "2026-11-25T10:15:30Z; limit 1 to " + RunQuery.MAX_LIMIT + ")";
			throw new InvalidEndpointRequestException(why, why);
		}
		return RunHistoryDescriptor.of(store.find(query));
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value != null && !value.isBlank()) ? value.trim() : null;
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

	/** This node's last heartbeat or renewal, by its estimate of the database's clock. */
	private @Nullable Instant ownHeartbeat() {
		Duration age = this.membership.status().lastHeartbeatAge();
		return (age != null) ? this.membership.serverTimeEstimate().map((now) -> now.minus(age)).orElse(null) : null;
	}

	/**
	 * An operator's action on this node, {@code POST /actuator/cluster/<action>}: {@code drain} and {@code undrain}
	 * (no body), {@code handover} ({@code {"group": "reports", "to": "n2"}}, sent to the group's leader), and, sent to
	 * the coordinator (the leader of {@code default}), {@code move} ({@code {"group": "tenants", "partition": 3,
	 * "to": "n2", "pin": true}}; without {@code to}, {@code "pin": false} takes a pin off), {@code pause}
	 * ({@code {"duration": "10m"}}) and {@code resume}. Null (404) for any other action.
	 * @throws InvalidEndpointRequestException for an action the node refuses, with the reason
	 */
	@WriteOperation
	public @Nullable OperationResponseBody act(@Selector String action, @Nullable String group, @Nullable String to,
			@Nullable Integer partition, @Nullable Boolean pin, @Nullable String duration) {
		try {
			switch (action) {
				case "move" -> {
					return move(group, partition, to, pin);
				}
				case "pause" -> {
					Duration length = (duration != null && !duration.isBlank())
							? DurationStyle.detectAndParse(duration.trim()) : null;
					if (length == null) {
						throw new IllegalArgumentException("A pause names its length: {\"duration\": \"10m\"}");
					}
					return new ClusterDescriptor.Pause(this.membership.pauseRebalancing(length).toString());
				}
				case "resume" -> {
					this.membership.resumeRebalancing();
					return new ClusterDescriptor.Pause(null);
				}
				case "drain" -> {
					List<String> holding = holding();
					this.membership.drain();
					return new ClusterDescriptor.Drain(this.membership.nodeId(), true, holding);
				}
				case "undrain" -> {
					this.membership.undrain();
					return new ClusterDescriptor.Drain(this.membership.nodeId(), false, List.of());
				}
				case "handover" -> {
					if (group == null || group.isBlank() || to == null || to.isBlank()) {
						throw new IllegalArgumentException(
								"A hand-over names the group and the node: {\"group\": \"reports\", \"to\": \"n2\"}");
					}
					this.membership.handOver(group.trim(), to.trim());
					return new ClusterDescriptor.HandOver(group.trim(), this.membership.nodeId(), to.trim());
				}
				default -> {
					return null;
				}
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	private ClusterDescriptor.Move move(@Nullable String group, @Nullable Integer partition, @Nullable String to,
			@Nullable Boolean pin) {
		if (group == null || group.isBlank() || partition == null || ((to == null || to.isBlank()) && pin == null)) {
			throw new IllegalArgumentException("A move names the group, the partition and the node: {\"group\": "
					+ "\"tenants\", \"partition\": 3, \"to\": \"n2\", \"pin\": true}; {\"group\", \"partition\", "
					+ "\"pin\": false} takes a pin off");
		}
		Partitions partitions = this.membership.partitions(group.trim());
		if (to == null || to.isBlank()) {
			partitions.unpin(partition);
			return new ClusterDescriptor.Move(group.trim(), partition, null, false);
		}
		boolean pinned = Boolean.TRUE.equals(pin);
		partitions.move(partition, to.trim(), pinned);
		return new ClusterDescriptor.Move(group.trim(), partition, to.trim(), pinned);
	}

	/** What this node holds: the plain groups it leads, and its partitions' leases. */
	private List<String> holding() {
		List<String> held = new ArrayList<>();
		for (String group : new TreeSet<>(this.membership.groups())) {
			if (this.membership.partitionedGroups().contains(group)) {
				this.membership.partitions(group).owned().forEach((p) -> held.add(group + "#" + p));
			}
			else if (this.membership.isLeader(group)) {
				held.add(group);
			}
		}
		return held;
	}

	private static String iso(Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

}
