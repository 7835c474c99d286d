package dev.membership.broadcast;

import java.io.IOException;
import java.net.ConnectException;
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
		return carry(request, leaderInfo(request.group()), true, ResignResult.class, () -> this.local.resign(request));
	}

	@Override
	public ResignResult release(Release request) {
		return carry(request, ownerInfo(request.group(), request.partition()), true, ResignResult.class,
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
		return carry(request, leaderInfo(request.group()), true, HandOverResult.class,
				() -> this.local.handOver(request));
	}

	@Override
	public PlacementResult move(Move request) {
		return carry(request, coordinator(), false, PlacementResult.class, () -> this.local.move(request));
	}

	@Override
	public PlacementResult pin(Pin request) {
		return carry(request, coordinator(), false, PlacementResult.class, () -> this.local.pin(request));
	}

	@Override
	public PlacementResult unpin(Unpin request) {
		return carry(request, coordinator(), false, PlacementResult.class, () -> this.local.unpin(request));
	}

	@Override
	public PauseResult pause(Pause request) {
		return carry(request, coordinator(), false, PauseResult.class, () -> this.local.pause(request));
	}

	@Override
	public PauseResult resume(Resume request) {
		return carry(request, coordinator(), false, PauseResult.class, () -> this.local.resume(request));
	}

	/**
	 * On the acting node: carries out a command another node carried here, on this node's
	 * own operations, and answers with its result or its refusal.
	 */
	public byte[] answer(ClusterBroadcastEvent command) {
		JsonNode payload = command.payloadTree();
		String nonce = this.codec.nonce(payload);
		String self = this.node.nodeId();
		OperationRequest request;
		try {
			request = this.codec.request(payload);
		}
		catch (IllegalArgumentException ex) {
			return this.codec.answer(nonce, self, null, ex.getMessage());
		}
		catch (JacksonException ex) {
			return this.codec.answer(nonce, self, null, "Node " + self + " cannot read the command "
					+ command.senderNodeId() + " carried here (a node of another version?): nothing done");
		}
		log.info("Node {} carries out {} for {}, carried here by {}", self, request.action(), request.requestedBy(),
				command.senderNodeId());
		Long epoch = this.codec.epoch(payload);
		String stale = (epoch != null) ? staleTerm(request, epoch) : null;
		if (stale != null) {
			return this.codec.answer(nonce, self, null, stale);
		}
		Object result;
		try {
			result = CommandCodec.perform(this.local, request);
		}
		catch (IllegalArgumentException ex) {
			return this.codec.answer(nonce, self, null, ex.getMessage());
		}
		catch (RuntimeException ex) {
			log.warn("A command carried here by {} failed", command.senderNodeId(), ex);
			return this.codec.answer(nonce, self, null,
					"Node " + self + " failed to carry it out: " + ex.getClass().getSimpleName());
		}
		return this.codec.answer(nonce, self, result, null);
	}

	/**
	 * Why a command sent for this node's term {@code epoch} of its unit would act on
	 * another term (a retry after a hand-over, a late delivery), or null: a resign asked
	 * of one leader never makes the next resign.
	 */
	private @Nullable String staleTerm(OperationRequest request, long epoch) {
		String group;
		LeaderInfo holder;
		String unit;
		if (request instanceof Release release) {
			group = release.group();
			holder = ownerInfo(group, release.partition());
			unit = "partition " + release.partition() + " of group '" + group + "'";
		}
		else {
			group = (request instanceof HandOver handOver) ? handOver.group() : ((Resign) request).group();
			holder = leaderInfo(group);
			unit = "group '" + group + "'";
		}
		if (holder != null && holder.nodeId().equals(this.node.nodeId()) && holder.epoch() == epoch) {
			return null;
		}
		return "Node " + this.node.nodeId() + " no longer holds " + unit + " under epoch " + epoch
				+ " (the term the command was sent for): nothing done; see /actuator/cluster, and ask again if it"
				+ " still applies";
	}

	/**
	 * Carries {@code request} to {@code actor} (for its term, when {@code termBound}), or
	 * runs it here when this node acts or none is known.
	 */
	private <T> T carry(OperationRequest request, @Nullable LeaderInfo actor, boolean termBound, Class<T> type,
			Supplier<T> here) {
		String self = this.node.nodeId();
		Member member = (actor != null && !actor.nodeId().equals(self)) ? member(actor.nodeId()) : null;
		if (actor == null || member == null) {
			return here.get(); // this node acts, or refuses naming the node that would
		}
		String to = actor.nodeId();
		String nonce = UUID.randomUUID().toString();
		CommandCodec.Answer<T> answer;
		try {
			answer = this.codec.answer(this.broadcaster.ask(member, TOPIC,
					this.codec.command(nonce, request, termBound ? actor.epoch() : null)), nonce, type);
		}
		catch (ConnectException ex) {
			throw refused(request, to, "it could not be reached (" + ex.getMessage() + "): nothing was carried out");
		}

		catch (IOException ex) {
			if (ex instanceof java.net.SocketTimeoutException && ex.getMessage() != null
					&& ex.getMessage().toLowerCase(java.util.Locale.ROOT).contains("connect")) {
				throw refused(request, to, "it could not be reached in time: nothing was carried out");
			}
			log.warn("Node {} carried {} for {} to {}, which did not answer: {}", self, request.action(),
					request.requestedBy(), to, ex.toString());
			throw new IllegalArgumentException("Node " + self + " carried " + request.action() + " to " + to
					+ ", the node that acts on it, which did not answer within " + this.settings.readTimeout()
					+ ": it may have been carried out (see /actuator/cluster on " + to + ") or not; ask again, or "
					+ "send it to " + to + " directly");
		}
		catch (RuntimeException ex) {
			// no keys at hand, an answer not signed or not this command's, ...
			throw refused(request, to, ex.getMessage());
		}
		log.info("Node {} carried {} for {} to {}, which {}", self, request.action(), request.requestedBy(),
				answer.node(), (answer.refused() != null) ? "refused it" : "carried it out");
		if (answer.refused() != null) {
			throw new IllegalArgumentException(answer.refused());
		}
		return answer.result();
	}

	private IllegalArgumentException refused(OperationRequest request, String to, @Nullable String why) {
		log.warn("Node {} could not carry {} for {} to {}: {}", this.node.nodeId(), request.action(),
				request.requestedBy(), to, why);
		return new IllegalArgumentException("Node " + this.node.nodeId() + " could not carry " + request.action()
				+ " to " + to + ", the node that acts on it: " + why + "; send it to " + to + " directly");
	}

	private @Nullable Member member(String nodeId) {
		return this.node.liveMembers()
			.stream()
			.filter((m) -> m.nodeId().equals(nodeId) && m.address() != null && !m.address().isBlank())
			.findFirst()
			.orElse(null);
	}

	private @Nullable LeaderInfo coordinator() {
		return leaderInfo("default");
	}

	private @Nullable LeaderInfo leaderInfo(String group) {
		try {
			return this.node.leader(group).orElse(null);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	private @Nullable LeaderInfo ownerInfo(String group, int partition) {
		try {
			return this.node.partitions(group).owners().get(partition);
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

}
