package dev.membership.broadcast;

import java.io.IOException;
import java.util.UUID;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

import dev.membership.Membership;
import dev.membership.leadership.LeaderInfo;
import dev.membership.liveness.Member;
import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Drain;
import dev.membership.operations.DrainResult;
import dev.membership.operations.HandOver;
import dev.membership.operations.HandOverResult;
import dev.membership.operations.Move;
import dev.membership.operations.OperationRequest;
import dev.membership.operations.Pause;
import dev.membership.operations.PauseResult;
import dev.membership.operations.Pin;
import dev.membership.operations.PlacementResult;
import dev.membership.operations.Release;
import dev.membership.operations.Resign;
import dev.membership.operations.ResignResult;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;

/**
 * The {@link ClusterOperations} of a node with the broadcast: a command is carried to the
 * node that acts on it (the leader of the group for {@code resign} and {@code handover},
 * the partition's owner for {@code release}, the coordinator for the placement's
 * commands), signed for it over the broadcast's channel, and its answer is that node's,
 * signed back. So an operator may send any command to any node (a load balancer picks
 * one). The acting node carries it out as its own (never carrying it further), records it
 * with who asked, and logs which node carried it there; the node it came through logs
 * where it went. {@code drain} and {@code undrain} act on the node they are sent to. A
 * command whose answer does not come within the broadcast's read timeout is refused here
 * with a message that says it may have been carried out.
 */
public final class OperatorRelay implements ClusterOperations {

	/** The reserved topic of commands carried between nodes. */
	public static final String TOPIC = "membership.command";

	private static final Logger log = LoggerFactory.getLogger(OperatorRelay.class);

	private final Membership node;

	private final ClusterOperations local;

	private final ClusterBroadcaster broadcaster;

	private final BroadcastSettings settings;

	private final CommandCodec codec = new CommandCodec();

	/**
	 * @param local this node's own operations (the engine's), which act here and never
	 * carry a command on
	 */
	public OperatorRelay(Membership node, ClusterOperations local, ClusterBroadcaster broadcaster,
			BroadcastSettings settings) {
		this.node = node;
		this.local = local;
		this.broadcaster = broadcaster;
		this.settings = settings;
	}

	@Override
	public ResignResult resign(Resign request) {
		return carry(request, leaderOf(request.group()), ResignResult.class, () -> this.local.resign(request));
	}

	@Override
	public ResignResult release(Release request) {
		return carry(request, ownerOf(request.group(), request.partition()), ResignResult.class,
				() -> this.local.release(request));
	}

	@Override
	public DrainResult drain(Drain request) {
		return this.local.drain(request);
	}

	@Override
	public DrainResult undrain(Undrain request) {
		return this.local.undrain(request);
	}

	@Override
	public HandOverResult handOver(HandOver request) {
		return carry(request, leaderOf(request.group()), HandOverResult.class, () -> this.local.handOver(request));
	}

	@Override
	public PlacementResult move(Move request) {
		return carry(request, coordinator(), PlacementResult.class, () -> this.local.move(request));
	}

	@Override
	public PlacementResult pin(Pin request) {
		return carry(request, coordinator(), PlacementResult.class, () -> this.local.pin(request));
	}

	@Override
	public PlacementResult unpin(Unpin request) {
		return carry(request, coordinator(), PlacementResult.class, () -> this.local.unpin(request));
	}

	@Override
	public PauseResult pause(Pause request) {
		return carry(request, coordinator(), PauseResult.class, () -> this.local.pause(request));
	}

	@Override
	public PauseResult resume(Resume request) {
		return carry(request, coordinator(), PauseResult.class, () -> this.local.resume(request));
	}

	/**
	 * On the acting node: carries out a command another node carried here, on this node's
	 * own operations, and answers with its result or its refusal.
	 */
	public byte[] answer(ClusterBroadcastEvent command) {
		JsonNode payload = command.payloadTree();
		String nonce = this.codec.nonce(payload);
		try {
			OperationRequest request = this.codec.request(payload);
			log.info("Node {} carries out {} for {}, carried here by {}", this.node.nodeId(), request.action(),
					request.requestedBy(), command.senderNodeId());
			Object result = CommandCodec.perform(this.local, request);
			return this.codec.answer(nonce, this.node.nodeId(), result, null);
		}
		catch (IllegalArgumentException ex) {
			return this.codec.answer(nonce, this.node.nodeId(), null, ex.getMessage());
		}
		catch (JacksonException ex) {
			return this.codec.answer(nonce, this.node.nodeId(), null, "Node " + this.node.nodeId()
					+ " cannot read the command " + command.senderNodeId() + " carried here (another version?)");
		}
		catch (RuntimeException ex) {
			log.warn("A command carried here by {} failed", command.senderNodeId(), ex);
			return this.codec.answer(nonce, this.node.nodeId(), null,
					"Node " + this.node.nodeId() + " failed to carry it out: " + ex.getClass().getSimpleName());
		}
	}

	private <T> T carry(OperationRequest request, @Nullable String actor, Class<T> type, Supplier<T> here) {
		Member member = (actor != null && !actor.equals(this.node.nodeId())) ? member(actor) : null;
		if (member == null) {
			return here.get(); // this node acts, or refuses naming the node that would
		}
		String nonce = UUID.randomUUID().toString();
		CommandCodec.Answer<T> answer;
		try {
			answer = this.codec.answer(this.broadcaster.ask(member, TOPIC, this.codec.command(nonce, request)), nonce,
					type);
		}
		catch (IOException ex) {
			log.warn("Node {} carried {} for {} to {}, which did not answer: {}", this.node.nodeId(), request.action(),
					request.requestedBy(), actor, ex.toString());
			throw new IllegalArgumentException("Node " + this.node.nodeId() + " carried " + request.action() + " to "
					+ actor + ", the node that acts on it, which did not answer within " + this.settings.readTimeout()
					+ ": it may have been carried out (see /actuator/cluster on " + actor
					+ ") or not; ask again, or send it to " + actor + " directly");
		}
		catch (IllegalStateException | JacksonException ex) {
			log.warn("Node {} could not carry {} for {} to {}: {}", this.node.nodeId(), request.action(),
					request.requestedBy(), actor, ex.getMessage());
			throw new IllegalArgumentException(
					"Node " + this.node.nodeId() + " could not carry " + request.action() + " to " + actor
							+ ", the node that acts on it: " + ex.getMessage() + "; send it to " + actor + " directly");
		}
		log.info("Node {} carried {} for {} to {}, which {}", this.node.nodeId(), request.action(),
				request.requestedBy(), answer.node(), (answer.refused() != null) ? "refused it" : "carried it out");
		if (answer.refused() != null) {
			throw new IllegalArgumentException(answer.refused());
		}
		return answer.result();
	}

	private @Nullable Member member(String nodeId) {
		return this.node.liveMembers()
			.stream()
			.filter((m) -> m.nodeId().equals(nodeId) && m.address() != null && !m.address().isBlank())
			.findFirst()
			.orElse(null);
	}

	private @Nullable String coordinator() {
		return leaderOf("default");
	}

	private @Nullable String leaderOf(String group) {
		try {
			return this.node.leader(group).map(LeaderInfo::nodeId).orElse(null);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private @Nullable String ownerOf(String group, int partition) {
		try {
			LeaderInfo owner = this.node.partitions(group).owners().get(partition);
			return (owner != null) ? owner.nodeId() : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

}
