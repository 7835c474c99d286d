package dev.membership.sample.cache;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.HttpStatus;
import org.springframework.context.event.EventListener;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.membership.broadcast.BroadcastResult;
import dev.membership.broadcast.ClusterBroadcastEvent;
import dev.membership.broadcast.ClusterBroadcaster;

/**
 * A local cache kept coherent by broadcasts: {@code POST /cache/invalidate?key=...}
 * evicts here and tells every other node; {@code GET /cache/events} lists the
 * invalidations this node received.
 */
@RestController
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class CacheInvalidation {

	private static final Logger log = LoggerFactory.getLogger(CacheInvalidation.class);

	static final String TOPIC = "cache.invalidate";

	private final ObjectProvider<ClusterBroadcaster> broadcaster;

	private final Map<String, String> cache = new ConcurrentHashMap<>();

	private final List<Received> received = new CopyOnWriteArrayList<>();

	public CacheInvalidation(ObjectProvider<ClusterBroadcaster> broadcaster) {
		this.broadcaster = broadcaster;
	}

	public record Received(String key, String sender, String messageId, Instant receivedAt) {
	}

	@PostMapping("/cache/invalidate")
	public CompletableFuture<BroadcastResult> invalidate(@RequestParam String key) {
		this.cache.remove(key);
		ClusterBroadcaster sender = this.broadcaster.getIfAvailable();
		if (sender == null) {
			throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "broadcast is off");
		}
		return sender.broadcast(TOPIC, Map.of("key", key));
	}

	@GetMapping("/cache/events")
	public List<Received> events() {
		List<Received> newestFirst = new ArrayList<>(this.received);
		java.util.Collections.reverse(newestFirst);
		return newestFirst;
	}

	@EventListener
	public void on(ClusterBroadcastEvent event) {
		if (!TOPIC.equals(event.topic())) {
			return;
		}
		String key = String.valueOf(event.payload(Map.class).get("key"));
		this.cache.remove(key);
		this.received.add(new Received(key, event.senderNodeId(), event.messageId().toString(), Instant.now()));
		log.info("Cache invalidation of '{}' from {}", key, event.senderNodeId());
	}

}
