package dev.membership.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import dev.membership.Membership;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.Partitions;
import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Requester;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;

/**
 * {@code /actuator/cluster}: the cluster as this node sees it (read, from memory: no
 * database call), the cluster's run history ({@code /actuator/cluster/runs}, one read of
 * the history), and the operators' commands ({@code POST /actuator/cluster/<action>},
 * {@link ClusterOperations}). The writes are closed by default, as Spring Boot's
 * disruptive endpoints are: {@code management.endpoint.cluster.access=unrestricted} opens
 * them (put them behind authentication first); the reads answer wherever the endpoint is
 * exposed.
 */
@Endpoint(id = "cluster", defaultAccess = Access.READ_ONLY)
public class ClusterEndpoint {

	/**
	 * The operators' actions, {@code POST /actuator/cluster/<action>}, in the order the
	 * reference lists them: one to one onto {@link ClusterOperations}.
	 */
	public static final List<String> ACTIONS = List.of("resign", "release", "drain", "undrain", "handover", "move",
			"pin", "unpin", "pause", "resume");

	/** The newest runs a query returns when it names no limit. */
	static final int DEFAULT_LIMIT = 100;

	private final Membership membership;

	private final OperatorCommands commands;

	private final @Nullable RunHistoryStore history;

	public ClusterEndpoint(Membership membership, @Nullable ClusterOperations operations) {
		this(membership, operations, null);
	}

	/**
	 * With {@code history}, {@code GET /actuator/cluster/runs} reads the cluster's run
	 * history; without {@code operations} (an application's own {@link Membership} that
	 * has none), every write is refused saying so.
	 */
	public ClusterEndpoint(Membership membership, @Nullable ClusterOperations operations,
			@Nullable RunHistoryStore history) {
		this.membership = membership;
		this.commands = new OperatorCommands(operations);
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
		Map<String, ClusterDescriptor.ScheduledJob> jobs = new LinkedHashMap<>();
		this.membership.scheduledJobs()
			.forEach((job) -> jobs.put((job.partition() != null) ? job.job() + "[" + job.partition() + "]" : job.job(),
					new ClusterDescriptor.ScheduledJob(job.group(), job.partition(), iso(job.lastFire()),
							job.lastOutcome(), iso(job.nextFire()))));
		return new ClusterDescriptor(
				new ClusterDescriptor.Self(this.membership.nodeId(), this.membership.advertisedAddress()), leader,
				groups, partitions, members, jobs);
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
	 * {@code /actuator/cluster/runs}: the cluster's runs, newest first, as the run
	 * history has them (one database read); every filter optional, {@code since} an
	 * ISO-8601 instant, {@code limit} 1 to 1000 (100 by default). Null (404) for any
	 * other path.
	 * @throws InvalidEndpointRequestException for a filter that cannot be read, or when
	 * this node keeps no history
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

	/** This node's last heartbeat or renewal, by its estimate of the database's clock. */
	private @Nullable Instant ownHeartbeat() {
		Duration age = this.membership.status().lastHeartbeatAge();
		return (age != null) ? this.membership.serverTimeEstimate().map((now) -> now.minus(age)).orElse(null) : null;
	}

	/**
	 * An operator's action through this node, {@code POST /actuator/cluster/<action>},
	 * one to one onto {@link ClusterOperations}: {@code resign} ({@code {"group":
	 * "reports"}}; without a group, {@code default}), {@code release} ({@code {"group":
	 * "tenants", "partition": 3}}), {@code drain} and {@code undrain} (no body),
	 * {@code handover} ({@code {"group": "reports", "to": "n2"}}, carried out by the
	 * group's leader), and, carried out by the coordinator (the leader of
	 * {@code default}), {@code move} and {@code pin} ({@code {"group": "tenants",
	 * "partition": 3, "to": "n2"}}), {@code unpin} ({@code {"group": "tenants",
	 * "partition": 3}}), {@code pause} ({@code {"duration": "10m"}}) and {@code resume}.
	 * Recorded with the principal that asked ({@code anonymous} without one). Closed
	 * unless the application opens the endpoint's writes
	 * ({@code management.endpoint.cluster.access=unrestricted}). Null (404) for any other
	 * action.
	 * @throws InvalidEndpointRequestException for a request that lacks what its action
	 * needs, or an action the node refuses, with the reason
	 */
	@WriteOperation
	public @Nullable OperationResponseBody act(@Selector String action, @Nullable String group,
			@Nullable Integer partition, @Nullable String to, @Nullable String duration, SecurityContext security) {
		return perform(action, new OperatorCommands.Body(group, partition, to, duration),
				OperatorCommands.requester(security, null));
	}

	/** {@link #act} for a caller at a known address: the web extensions'. */
	@Nullable OperationResponseBody perform(String action, OperatorCommands.Body body, Requester by) {
		try {
			return this.commands.perform(action, body, by);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), ex.getMessage());
		}
	}

	private static String iso(Instant instant) {
		return (instant != null) ? instant.toString() : null;
	}

}
