package dev.membership.broadcast;

import java.time.Instant;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.event.MembershipEvent;

/**
 * An authenticated broadcast from another node (or from this one, with deliver-to-self),
 * delivered at most once per message id within the dedupe window, as the node
 * {@link #observerNodeId()} received it. Listen with {@code @EventListener}.
 */
public final class ClusterBroadcastEvent implements MembershipEvent {

	private final String observerNodeId;

	private final String topic;

	private final String senderNodeId;

	private final UUID messageId;

	private final Instant sentAt;

	private final JsonNode payload;

	private final JsonMapper mapper;

	ClusterBroadcastEvent(String observerNodeId, String topic, String senderNodeId, UUID messageId, Instant sentAt,
			JsonNode payload, JsonMapper mapper) {
		this.observerNodeId = observerNodeId;
		this.topic = topic;
		this.senderNodeId = senderNodeId;
		this.messageId = messageId;
		this.sentAt = sentAt;
		this.payload = payload;
		this.mapper = mapper;
	}

	@Override
	public String observerNodeId() {
		return this.observerNodeId;
	}

	public String topic() {
		return this.topic;
	}

	public String senderNodeId() {
		return this.senderNodeId;
	}

	public UUID messageId() {
		return this.messageId;
	}

	/** When the sender sent it, in (the sender's estimate of) database time. */
	public Instant sentAt() {
		return this.sentAt;
	}

	/** The payload as {@code type}, with the application's JSON mapper. */
	public <T> T payload(Class<T> type) {
		return this.mapper.treeToValue(this.payload, type);
	}

	public JsonNode payloadTree() {
		return this.payload;
	}

	public String payloadJson() {
		return this.mapper.writeValueAsString(this.payload);
	}

	@Override
	public String toString() {
		return "ClusterBroadcastEvent[topic=" + this.topic + ", sender=" + this.senderNodeId + ", id=" + this.messageId
				+ "]";
	}

}
