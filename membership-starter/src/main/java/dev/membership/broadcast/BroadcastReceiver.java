package dev.membership.broadcast;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

import dev.membership.broadcast.BroadcastMetrics.Received;

/**
 * Checks an incoming broadcast, cheapest check first: size, content type, signature (over
 * the raw bytes, before any parsing), JSON shape, freshness, duplicate. Only a message
 * that passes all is handed on. Answers never echo the payload or a key.
 */
public class BroadcastReceiver {

	private static final Logger log = LoggerFactory.getLogger(BroadcastReceiver.class);

	private static final long MAX_REMEMBERED_IDS = 200_000;

	private final String nodeId;

	private final BroadcastKeySource keys;

	private final JsonMapper mapper;

	private final BroadcastSettings settings;

	private final Supplier<Optional<Instant>> serverTime;

	private final Consumer<ClusterBroadcastEvent> deliver;

	private final BroadcastMetrics metrics;

	private final Cache<UUID, Boolean> seen;

	private final @Nullable Function<ClusterBroadcastEvent, byte[]> commands;

	/**
	 * Receives for the node {@code nodeId}, whose estimate of database time
	 * {@code serverTime} gives.
	 */
	public BroadcastReceiver(String nodeId, BroadcastKeySource keys, JsonMapper mapper, BroadcastSettings settings,
			Supplier<Optional<Instant>> serverTime, Consumer<ClusterBroadcastEvent> deliver, BroadcastMetrics metrics) {
		this(nodeId, keys, mapper, settings, serverTime, deliver, metrics, null);
	}

	/**
	 * As the other constructor, and answers an operator's command that another node
	 * carried here ({@link OperatorRelay#TOPIC}) with what {@code commands} returns,
	 * signed for the sender; without it such a command is answered 404.
	 */
	public BroadcastReceiver(String nodeId, BroadcastKeySource keys, JsonMapper mapper, BroadcastSettings settings,
			Supplier<Optional<Instant>> serverTime, Consumer<ClusterBroadcastEvent> deliver, BroadcastMetrics metrics,
			@Nullable Function<ClusterBroadcastEvent, byte[]> commands) {
		this.commands = commands;
		this.nodeId = nodeId;
		this.keys = keys;
		this.mapper = mapper;
		this.settings = settings;
		this.serverTime = serverTime;
		this.deliver = deliver;
		this.metrics = metrics;
		this.seen = Caffeine.newBuilder()
			.expireAfterWrite(settings.dedupeWindow())
			.maximumSize(MAX_REMEMBERED_IDS)
			.build();
	}

	/**
	 * The status and a small JSON body to answer with: a fixed word, or a command's
	 * answer with the key id and signature (for its sender) that go in the headers.
	 */
	public record Response(int status, String body, @Nullable String keyId, @Nullable String signature) {

		static Response of(int status, String word) {
			return new Response(status, "{\"status\":\"" + word + "\"}", null, null);
		}

	}

	public Response receive(String contentType, long contentLength, InputStream in, String keyId, String signature) {
		if (contentLength > this.settings.maxBodySize()) {
			return reject(413, "too large");
		}
		if (!isJson(contentType)) {
			return reject(400, "expected application/json");
		}
		byte[] body;
		try {
			body = readAtMost(in, this.settings.maxBodySize() + 1);
		}
		catch (IOException ex) {
			return reject(400, "unreadable");
		}
		if (body.length > this.settings.maxBodySize()) {
			return reject(413, "too large");
		}
		if (keyId == null || signature == null) {
			return reject(401, "unauthorized");
		}
		BroadcastKeyring keyring;
		try {
			keyring = this.keys.keyring();
		}
		catch (RuntimeException ex) {
			log.warn("Cannot check a broadcast: no keys ({})", ex.getMessage());
			return reject(503, "unavailable");
		}
		// signed for this node, or not accepted
		if (!keyring.verify(keyId, this.nodeId, body, signature)) {
			return reject(401, "unauthorized");
		}
		Envelope envelope;
		try {
			envelope = parse(body);
		}
		catch (JacksonException | IllegalArgumentException ex) {
			return reject(400, "malformed");
		}
		Optional<Instant> now = this.serverTime.get();
		if (now.isEmpty()) {
			return reject(503, "unavailable");
		}
		Duration age = Duration.between(envelope.sentAt, now.get()).abs();
		if (age.compareTo(this.settings.dedupeWindow().dividedBy(2)) > 0) {
			// outside the window a replay could no longer be recognised as a duplicate
			return reject(401, "stale");
		}
		if (this.seen.asMap().putIfAbsent(envelope.id, Boolean.TRUE) != null) {
			this.metrics.received(Received.DUPLICATE);
			return Response.of(200, "duplicate");
		}
		this.metrics.received(Received.ACCEPTED);
		ClusterBroadcastEvent event = new ClusterBroadcastEvent(this.nodeId, envelope.topic, envelope.sender,
				envelope.id, envelope.sentAt, envelope.payload, this.mapper);
		if (OperatorRelay.TOPIC.equals(envelope.topic)) {
			return answer(event, keyring);
		}
		try {
			this.deliver.accept(event);
		}
		catch (RuntimeException ex) {
			log.error("A broadcast listener failed on topic {}", envelope.topic, ex);
		}
		return Response.of(200, "accepted");
	}

	/**
	 * A command carried here, answered with its outcome signed for the node that sent it.
	 */
	private Response answer(ClusterBroadcastEvent command, BroadcastKeyring keyring) {
		if (this.commands == null) {
			return Response.of(404, "no commands");
		}
		byte[] answer = this.commands.apply(command);
		return new Response(200, new String(answer, StandardCharsets.UTF_8), keyring.primaryKeyId(),
				keyring.sign(command.senderNodeId(), answer));
	}

	private Response reject(int status, String word) {
		this.metrics.received(Received.REJECTED);
		return Response.of(status, word);
	}

	private static boolean isJson(String contentType) {
		if (contentType == null) {
			return false;
		}
		try {
			MediaType type = MediaType.parseMediaType(contentType);
			return MediaType.APPLICATION_JSON.isCompatibleWith(type) && !type.isWildcardType();
		}
		catch (InvalidMediaTypeException ex) {
			return false;
		}
	}

	private Envelope parse(byte[] body) {
		JsonNode root = this.mapper.readTree(body);
		if (root == null || !root.isObject()) {
			throw new IllegalArgumentException("not an object");
		}
		JsonNode id = root.get("id");
		JsonNode sender = root.get("sender");
		JsonNode topic = root.get("topic");
		JsonNode sentAt = root.get("sentAt");
		JsonNode payload = root.get("payload");
		if (id == null || !id.isString() || sender == null || !sender.isString() || topic == null || !topic.isString()
				|| topic.asString().isBlank() || sentAt == null || !sentAt.isIntegralNumber() || payload == null) {
			throw new IllegalArgumentException("missing fields");
		}
		return new Envelope(UUID.fromString(id.asString()), sender.asString(), topic.asString(),
				Instant.ofEpochMilli(sentAt.asLong()), payload);
	}

	private static byte[] readAtMost(InputStream in, long limit) throws IOException {
		ByteArrayOutputStream out = new ByteArrayOutputStream();
		byte[] buffer = new byte[8192];
		long total = 0;
		int read;
		while (total < limit && (read = in.read(buffer, 0, (int) Math.min(buffer.length, limit - total))) != -1) {
			out.write(buffer, 0, read);
			total += read;
		}
		return out.toByteArray();
	}

	private record Envelope(UUID id, String sender, String topic, Instant sentAt, JsonNode payload) {
	}

}
