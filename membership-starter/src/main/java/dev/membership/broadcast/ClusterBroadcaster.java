package dev.membership.broadcast;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import dev.membership.broadcast.BroadcastResult.Delivery;
import dev.membership.broadcast.BroadcastResult.Outcome;
import dev.membership.Membership;
import dev.membership.liveness.Member;

/**
 * Sends an advisory message to every live member by calling it directly: in parallel,
 * each call bounded by connect and read timeouts with one retry on a connection failure,
 * so a slow or dead member never holds up the others or the caller (who gets a future).
 */
public class ClusterBroadcaster implements AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(ClusterBroadcaster.class);

	private static final int MAX_PARALLEL_SENDS = 16;

	/** How long a sender thread outlives its last message. */
	private static final long SENDER_IDLE_SECONDS = 30;

	private final Membership node;

	private final BroadcastKeySource keys;

	private final JsonMapper mapper;

	private final BroadcastSettings settings;

	private final BroadcastMetrics metrics;

	private final Consumer<ClusterBroadcastEvent> localDelivery;

	private final ExecutorService senders;

	private final HttpDelivery http;

	private final NoticeSender notices;

	private final SignedPost commands;

	public ClusterBroadcaster(Membership node, BroadcastKeySource keys, JsonMapper mapper, BroadcastSettings settings,
			BroadcastMetrics metrics, Consumer<ClusterBroadcastEvent> localDelivery) {
		this.node = node;
		this.keys = keys;
		this.mapper = mapper;
		this.settings = settings;
		this.metrics = metrics;
		this.localDelivery = localDelivery;
		metrics.register();
		AtomicInteger threads = new AtomicInteger();
		// at most 16 at once, none while idle: a node that broadcasts nothing keeps no
		// thread for it
		ThreadPoolExecutor senders = new ThreadPoolExecutor(MAX_PARALLEL_SENDS, MAX_PARALLEL_SENDS, SENDER_IDLE_SECONDS,
				TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (r) -> {
					Thread t = new Thread(r, "membership-broadcast-" + threads.incrementAndGet());
					t.setDaemon(true);
					return t;
				});
		senders.allowCoreThreadTimeOut(true);
		this.senders = senders;
		this.http = new HttpDelivery(settings, metrics, this::uri);
		this.notices = new NoticeSender(settings, metrics, this::uri);
		this.commands = new SignedPost(settings);
	}

	/**
	 * Sends {@code payload} (anything the JSON mapper can write) under {@code topic} to
	 * every live member. Completes when every member has answered, failed or timed out;
	 * completes exceptionally when the keys cannot be read.
	 * @throws IllegalArgumentException for a blank topic, or one under
	 * {@code membership.} (the starter's own)
	 */
	public CompletableFuture<BroadcastResult> broadcast(String topic, Object payload) {
		if (topic != null && LeadershipNotices.isInternal(topic)) {
			throw new IllegalArgumentException("Topic '" + topic + "' is reserved: topics starting with 'membership.' "
					+ "carry the starter's own leadership notices; choose another name");
		}
		return send(topic, payload);
	}

	/** Sends on any topic, the reserved ones included: for the starter's own notices. */
	CompletableFuture<BroadcastResult> send(String topic, Object payload) {
		return send(topic, payload, (member) -> true);
	}

	/**
	 * As {@link #send(String, Object)}, to the live members that {@code to} accepts only.
	 */
	CompletableFuture<BroadcastResult> send(String topic, Object payload, Predicate<Member> to) {
		if (topic == null || topic.isBlank()) {
			throw new IllegalArgumentException("A broadcast needs a topic");
		}
		Envelope envelope = envelope(topic, payload);
		if (envelope == null) {
			return CompletableFuture.completedFuture(new BroadcastResult(UUID.randomUUID(), List.of()));
		}
		// the keys may come from the database (blocking, now and then): never on the
		// caller's thread, which may be an event loop; no keys yet (store unreachable)
		// fails the broadcast, since nothing can be signed
		CompletableFuture<BroadcastResult> result = new CompletableFuture<>();
		onSenders(() -> {
			try {
				BroadcastKeyring keyring = this.keys.keyring();
				fanOut(envelope.id, topic, envelope.sentAt, envelope.tree, envelope.body, keyring, to)
					.whenComplete((done, ex) -> {
						if (ex != null) {
							result.completeExceptionally(ex);
						}
						else {
							result.complete(done);
						}
					});
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex); // the bare cause: no keys yet, say
			}
		});
		return result;
	}

	/**
	 * Sends a notice of the starter's own now, on the caller's thread, which may block
	 * for it (connect and read timeouts per member): signed here when the keys are at
	 * hand, as {@link #send} otherwise; a hand-over notice leaves the moment the node let
	 * go. {@code first} (when not null and live): the successor, told alone; the others,
	 * who would compete with it for the store and the machine, get {@code othersPayload}
	 * only when it could not be told. (If it was told but does not take over, the others
	 * find the lease released at their next read.)
	 */
	BroadcastResult sendAtOnce(String topic, Object payload, @Nullable String first, Object othersPayload) {
		BroadcastKeyring keyring = this.keys.keyringAtHand();
		Envelope envelope = (keyring != null) ? envelope(topic, payload) : null;
		if (keyring == null || envelope == null) {
			return send(topic, othersPayload).exceptionally((ex) -> new BroadcastResult(UUID.randomUUID(), List.of()))
				.join();
		}
		List<Member> others = this.node.liveMembers()
			.stream()
			.filter((member) -> !member.nodeId().equals(this.node.nodeId()))
			.toList();
		NoticeSender.Signed toFirst = NoticeSender.Signed.of(envelope.body, keyring);
		return new BroadcastResult(envelope.id, this.notices.tell(others, first, toFirst, () -> {
			Envelope other = (othersPayload == payload) ? null : envelope(topic, othersPayload);
			return (other == null) ? toFirst : NoticeSender.Signed.of(other.body, keyring);
		}));
	}

	/**
	 * Sends {@code payload} under {@code topic} to {@code member} alone, on the caller's
	 * thread, and returns its answer once its signature for this node is checked: an
	 * operator's command carried to the node that acts on it.
	 * @throws IOException when the member could not be reached or did not answer in time
	 * (the command may then have been carried out)
	 * @throws IllegalStateException when nothing could be signed or stamped, or the
	 * answer is not a signed 200
	 */
	byte[] ask(Member member, String topic, Object payload) throws IOException {
		BroadcastKeyring keyring = this.keys.keyring();
		Envelope envelope = envelope(topic, payload);
		if (envelope == null || member.address() == null) {
			throw new IllegalStateException(
					"it cannot be sent yet (no address, or no estimate of the database's " + "clock to stamp it with)");
		}
		SignedPost.Reply reply = this.commands.post(uri(member.address()), envelope.body, keyring.primaryKeyId(),
				keyring.sign(member.nodeId(), envelope.body));
		if (reply.status() != 200) {
			throw new IllegalStateException("it answered HTTP " + reply.status());
		}
		if (reply.keyId() == null || reply.signature() == null
				|| !keyring.verify(reply.keyId(), this.node.nodeId(), reply.body(), reply.signature())) {
			throw new IllegalStateException("its answer is not signed with the cluster's keys");
		}
		return reply.body();
	}

	/**
	 * The message as sent: its id, the time it says it was sent (the database's,
	 * estimated), payload and body.
	 */
	private record Envelope(UUID id, Instant sentAt, JsonNode tree, byte[] body) {
	}

	/**
	 * Null before this node has an estimate of the database's clock (nothing to stamp the
	 * message with).
	 */
	private @Nullable Envelope envelope(String topic, Object payload) {
		UUID id = UUID.randomUUID();
		Instant sentAt = this.node.serverTimeEstimate().orElse(null);
		if (sentAt == null) {
			return null;
		}
		JsonNode tree = this.mapper.valueToTree(payload);
		ObjectNode envelope = this.mapper.createObjectNode();
		envelope.put("id", id.toString());
		envelope.put("sender", this.node.nodeId());
		envelope.put("topic", topic);
		envelope.put("sentAt", sentAt.toEpochMilli());
		envelope.set("payload", tree);
		return new Envelope(id, sentAt, tree, this.mapper.writeValueAsBytes(envelope));
	}

	/**
	 * Runs {@code task} on a sender thread, or here once they are shutting down: a
	 * broadcast begun before {@link #close()} (the lease release on shutdown) still goes
	 * out, within its grace period.
	 */
	private void onSenders(Runnable task) {
		try {
			this.senders.execute(task);
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

	/**
	 * As a receiver delivers: a listener that throws is logged, and the others are still
	 * sent to.
	 */
	private Delivery deliverToSelf(Member self, UUID id, String topic, Instant sentAt, JsonNode tree) {
		try {
			this.localDelivery.accept(new ClusterBroadcastEvent(this.node.nodeId(), topic, this.node.nodeId(), id,
					sentAt, tree, this.mapper));
			return new Delivery(self.nodeId(), self.address(), Outcome.DELIVERED, null);
		}
		catch (RuntimeException ex) {
			log.error("A broadcast listener failed on topic {} (delivered to this node itself)", topic, ex);
			return new Delivery(self.nodeId(), self.address(), Outcome.FAILED, ex.toString());
		}
	}

	private CompletableFuture<BroadcastResult> fanOut(UUID id, String topic, Instant sentAt, JsonNode tree, byte[] body,
			BroadcastKeyring keyring, Predicate<Member> to) {
		List<CompletableFuture<Delivery>> deliveries = new ArrayList<>();
		for (Member member : this.node.liveMembers()) {
			if (!to.test(member)) {
				continue;
			}
			if (member.nodeId().equals(this.node.nodeId())) {
				if (this.settings.deliverToSelf()) {
					deliveries.add(CompletableFuture.completedFuture(deliverToSelf(member, id, topic, sentAt, tree)));
				}
				else {
					deliveries.add(CompletableFuture
						.completedFuture(new Delivery(member.nodeId(), member.address(), Outcome.SKIPPED, "self")));
				}
				continue;
			}
			if (member.address() == null || member.address().isBlank()) {
				deliveries.add(CompletableFuture
					.completedFuture(new Delivery(member.nodeId(), null, Outcome.SKIPPED, "no address")));
				continue;
			}
			CompletableFuture<Delivery> delivery = new CompletableFuture<>();
			onSenders(() -> {
				try {
					delivery.complete(this.http.deliver(member, body, keyring.primaryKeyId(),
							// for this member alone
							keyring.sign(member.nodeId(), body)));
				}
				catch (Throwable ex) {
					delivery.completeExceptionally(ex);
				}
			});
			deliveries.add(delivery);
		}
		return CompletableFuture.allOf(deliveries.toArray(CompletableFuture[]::new))
			.thenApply((done) -> new BroadcastResult(id, deliveries.stream().map(CompletableFuture::join).toList()));
	}

	URI uri(String address) {
		String base = address.contains("://") ? address : "http://" + address;
		if (base.endsWith("/")) {
			base = base.substring(0, base.length() - 1);
		}
		return URI.create(base + this.settings.path());
	}

	@Override
	public void close() {
		this.senders.shutdown();
		try {
			// let a last broadcast (the lease release on shutdown) reach the others
			Duration grace = this.settings.connectTimeout().multipliedBy(2).plus(this.settings.readTimeout());
			this.senders.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.senders.shutdownNow();
	}

}
