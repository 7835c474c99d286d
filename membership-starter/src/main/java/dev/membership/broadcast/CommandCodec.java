package dev.membership.broadcast;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Drain;
import dev.membership.operations.HandOver;
import dev.membership.operations.Move;
import dev.membership.operations.OperationRequest;
import dev.membership.operations.Pause;
import dev.membership.operations.Pin;
import dev.membership.operations.Release;
import dev.membership.operations.Resign;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;

/**
 * An operator's command and its answer as they travel between two nodes: the request by
 * its type's name, the answer with the nonce of the request it answers, the node that
 * acted, and either its result or its refusal. A mapper of its own, so that what an
 * application configures on its JSON mapper never changes the nodes' own protocol.
 */
final class CommandCodec {

	private static final Map<String, Class<? extends OperationRequest>> REQUESTS = List
		.<Class<? extends OperationRequest>>of(Resign.class, Release.class, Drain.class, Undrain.class, HandOver.class,
				Move.class, Pin.class, Unpin.class, Pause.class, Resume.class)
		.stream()
		.collect(Collectors.toUnmodifiableMap(Class::getSimpleName, Function.identity()));

	private final JsonMapper mapper = JsonMapper.builder().build();

	/** What the acting node answered: {@code result} or {@code refused}, one of them. */
	record Answer<T>(String node, @Nullable T result, @Nullable String refused) {
	}

	/**
	 * @param epoch the term of the acting node's the command is for (a resign, a release,
	 * a hand-over), or null
	 */
	ObjectNode command(String nonce, OperationRequest request, @Nullable Long epoch) {
		ObjectNode command = this.mapper.createObjectNode();
		command.put("nonce", nonce);
		if (epoch != null) {
			command.put("epoch", epoch);
		}
		command.put("type", request.getClass().getSimpleName());
		command.set("request", this.mapper.valueToTree(request));
		return command;
	}

	String nonce(JsonNode command) {
		JsonNode nonce = command.get("nonce");
		return (nonce != null && nonce.isString()) ? nonce.asString() : "";
	}

	/** The term the command is for, or null. */
	@Nullable Long epoch(JsonNode command) {
		JsonNode epoch = command.get("epoch");
		return (epoch != null && epoch.isIntegralNumber()) ? epoch.asLong() : null;
	}

	/**
	 * @throws IllegalArgumentException for a command of no known type, or one its type
	 * refuses (the record's own message)
	 */
	OperationRequest request(JsonNode command) {
		JsonNode type = command.get("type");
		Class<? extends OperationRequest> requestType = (type != null) ? REQUESTS.get(type.asString()) : null;
		if (requestType == null || command.get("request") == null) {
			throw new IllegalArgumentException("Not a command this node knows (a node of another version sent it?)");
		}
		try {
			return this.mapper.treeToValue(command.get("request"), requestType);
		}
		catch (tools.jackson.core.JacksonException ex) {
			// a record that refuses its values says why: that, not a parse error
			for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
				if (cause instanceof IllegalArgumentException refused) {
					throw refused;
				}
			}
			throw ex;
		}
	}

	byte[] answer(String nonce, String node, @Nullable Object result, @Nullable String refused) {
		ObjectNode answer = this.mapper.createObjectNode();
		answer.put("nonce", nonce);
		answer.put("node", node);
		if (refused != null) {
			answer.put("refused", refused);
		}
		else {
			answer.set("result", this.mapper.valueToTree(result));
		}
		return this.mapper.writeValueAsBytes(answer);
	}

	/**
	 * @throws IllegalStateException when it answers another request, or has neither a
	 * result nor a refusal
	 */
	<T> Answer<T> answer(byte[] body, String nonce, Class<T> type) {
		JsonNode answer = this.mapper.readTree(body);
		if (answer == null || !nonce.equals(nonce(answer)) || answer.get("node") == null) {
			throw new IllegalStateException("its answer is not the answer to this command");
		}
		String node = answer.get("node").asString();
		JsonNode refused = answer.get("refused");
		if (refused != null && refused.isString()) {
			return new Answer<>(node, null, refused.asString());
		}
		JsonNode result = answer.get("result");
		if (result == null) {
			throw new IllegalStateException("its answer has neither a result nor a refusal");
		}
		return new Answer<>(node, this.mapper.treeToValue(result, type), null);
	}

	/** Carries {@code request} out on {@code operations}, whichever command it is. */
	static Object perform(ClusterOperations operations, OperationRequest request) {
		if (request instanceof Resign resign) {
			return operations.resign(resign);
		}
		if (request instanceof Release release) {
			return operations.release(release);
		}
		if (request instanceof Drain drain) {
			return operations.drain(drain);
		}
		if (request instanceof Undrain undrain) {
			return operations.undrain(undrain);
		}
		if (request instanceof HandOver handOver) {
			return operations.handOver(handOver);
		}
		if (request instanceof Move move) {
			return operations.move(move);
		}
		if (request instanceof Pin pin) {
			return operations.pin(pin);
		}
		if (request instanceof Unpin unpin) {
			return operations.unpin(unpin);
		}
		if (request instanceof Pause pause) {
			return operations.pause(pause);
		}
		return operations.resume((Resume) request);
	}

}
