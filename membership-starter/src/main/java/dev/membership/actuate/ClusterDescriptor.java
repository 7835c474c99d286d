package dev.membership.actuate;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import com.fasterxml.jackson.annotation.JsonInclude;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * The body of {@code GET /actuator/cluster}. Field names are an API: keep them stable.
 * Times are ISO-8601 strings in database time.
 *
 * @param self this node
 * @param leader the leader of the {@code default} group, or null when it has none
 * @param groups every plain group this node competes for, by name
 * @param partitions every partitioned group of this node, by name
 * @param members every member in the last roster this node took: live first, then oldest
 * first
 * @param scheduledJobs the scheduled jobs whose fires are the cluster's, by job, as this
 * node knows them
 */
// the actuator's mapper drops nulls; "leader": null is part of the API
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ClusterDescriptor(Self self, @Nullable Leader leader, Map<String, Group> groups,
		Map<String, PartitionedGroup> partitions, List<MemberDescriptor> members,
		Map<String, ScheduledJob> scheduledJobs) implements OperationResponseBody {

	/**
	 * A scheduled job: its group, the instant of its last fire this node began or
	 * recorded and what came of it ({@code running}, {@code ended}, {@code missed},
	 * {@code skipped}), and its next fire while this node leads the group (null
	 * elsewhere: ask the leader).
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record ScheduledJob(String group, @Nullable Integer partition, @Nullable String lastFire,
			@Nullable String lastOutcome, @Nullable String nextFire) {
	}

	/**
	 * The answer to the write operation, what a resign did: {@code partition} is null for
	 * a plain group; {@code resigned} is false when this node did not lead the group (or
	 * own the partition), so there was nothing to hand over.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Resignation(String group, @Nullable Integer partition,
			boolean resigned) implements OperationResponseBody {
	}

	/**
	 * The answer to {@code POST /actuator/cluster/drain} and {@code /undrain}:
	 * {@code handingOver}, the groups and partitions ({@code group#partition}) it held as
	 * it drained, each handed over after its drain; empty on undrain.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Drain(String nodeId, boolean drained, List<String> handingOver) implements OperationResponseBody {
	}

	/**
	 * The answer to {@code POST /actuator/cluster/handover}: {@code from} hands
	 * {@code group} to {@code to}.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record HandOver(String group, String from, String to) implements OperationResponseBody {
	}

	/**
	 * The answer to {@code POST /actuator/cluster/move}: the coordinator puts
	 * {@code partition} of {@code group} on {@code to} at its next placement ({@code to}
	 * null: only a pin taken off), pinned there or not.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Move(String group, int partition, @Nullable String to,
			boolean pinned) implements OperationResponseBody {
	}

	/**
	 * The answer to {@code POST /actuator/cluster/pause} and {@code /resume}: until when
	 * rebalancing is paused.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Pause(@Nullable String pausedUntil) implements OperationResponseBody {
	}

	/** Why the node refused a write operation (HTTP 400). */
	public record Refusal(String error) implements OperationResponseBody {
	}

	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Self(String nodeId, @Nullable String address) {
	}

	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Leader(String nodeId, @Nullable String address, long epoch, String leaseExpiresAt) {
	}

	/**
	 * {@code leader} is a node id or null; {@code epoch} the last epoch seen (null if
	 * none).
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Group(@Nullable String leader, @Nullable Long epoch, @Nullable String leaseExpiresAt) {
	}

	/**
	 * {@code owners}: by partition number (a string, as JSON keys are), the owner as this
	 * node knows it: itself for its own partitions, else the holder of the lease it last
	 * saw, else the node the coordinator placed it on (epoch null: not seen). A partition
	 * neither owned, seen nor placed is absent.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record PartitionedGroup(int count, Map<String, PartitionOwner> owners) {
	}

	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record PartitionOwner(String nodeId, @Nullable Long epoch) {
	}

	/**
	 * {@code leader}: the node leads at least one group; {@code live} as of
	 * {@code liveAsOf}: for this node its own last heartbeat or renewal, for the others
	 * the roster keeper's latest check of every node's heartbeat (it moves every renewal
	 * interval while the keeper is up); {@code lastHeartbeat}: this node's own, null for
	 * the others (this node does not read their heartbeats).
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record MemberDescriptor(String nodeId, @Nullable String address, boolean leader, boolean live,
			@Nullable String liveAsOf, @Nullable String lastHeartbeat, @Nullable String startedAt) {
	}

}
