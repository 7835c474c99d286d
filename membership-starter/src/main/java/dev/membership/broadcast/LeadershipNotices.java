package dev.membership.broadcast;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import dev.membership.Membership;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * Tells the other nodes about leadership at once instead of at their next tick: a lease
 * this node let go of, a group's or a partition's (sent the moment it did, from the
 * engine's thread, the successor first: it takes the lease over from that term within
 * milliseconds of a graceful stop, resign or move, without waiting for the release to
 * land), and a new leader (so every node sees the change now), and as the keeper of the
 * roster which nodes a roster just written moves work for (so that they read it now, not
 * at their next interval); and hands the notices other nodes send to this one's engine,
 * as its {@link NoticeChannel}. Signed, so that only a node with the cluster's keys can
 * say that a term was let go of; the lease document still decides. A reaction of the
 * node, not an application listener, so that no application listener can stop the
 * notices.
 */
public class LeadershipNotices implements MembershipEventListener, NoticeChannel {

	public static final String LEASE_RELEASED = "membership.lease-released";

	public static final String LEADER_ELECTED = "membership.leader-elected";

	public static final String ROSTER_CHANGED = "membership.roster-changed";

	/**
	 * The longest a node keeps the sender of a let-go notice waiting for its answer (see
	 * {@link #apply}).
	 */
	static final Duration ANSWER_WITHIN = Duration.ofMillis(500);

	private final Membership node;

	private final ClusterBroadcaster broadcaster;

	private volatile @Nullable NoticeReceiver receiver;

	public LeadershipNotices(Membership node, ClusterBroadcaster broadcaster) {
		this.node = node;
		this.broadcaster = broadcaster;
	}

	@Override
	public void connect(NoticeReceiver receiver) {
		this.receiver = receiver;
	}

	public static boolean isInternal(String topic) {
		return topic.startsWith("membership.");
	}

	@Override
	public void onEvent(MembershipEvent event) {
		if (event instanceof LeaderElectedEvent elected) {
			onElected(elected);
		}
	}

	/**
	 * Groups' leases, or partitions' by their lease names ({@code group#partition}), in
	 * one notice: on this thread, which may block for it, the successor alone when it can
	 * be told.
	 */
	@Override
	public void letGo(Map<String, Long> leases, @Nullable String successor) {
		Map<String, Object> news = new LinkedHashMap<>();
		if (leases.size() == 1) {
			Map.Entry<String, Long> lease = leases.entrySet().iterator().next();
			news.put("group", lease.getKey());
			news.put("epoch", lease.getValue());
		}
		else {
			news.put("leases",
					leases.entrySet()
						.stream()
						.map((lease) -> Map.of("group", lease.getKey(), "epoch", lease.getValue()))
						.toList());
		}
		if (successor == null) {
			this.broadcaster.sendAtOnce(LEASE_RELEASED, news, null, news);
			return;
		}
		// the others hear of it only when the successor could not be told: then without
		// its name, so that each decides by its own view (the leaver's may still list a
		// member that has left)
		Map<String, Object> named = new LinkedHashMap<>(news);
		named.put("successor", successor);
		this.broadcaster.sendAtOnce(LEASE_RELEASED, named, successor, news);
	}

	/**
	 * As the keeper: to the nodes {@code version} moves work for, so that they read it
	 * now.
	 */
	@Override
	public void rosterChanged(long version, Set<String> nodes) {
		this.broadcaster.send(ROSTER_CHANGED, Map.of("version", version), (member) -> nodes.contains(member.nodeId()));
	}

	private void onElected(LeaderElectedEvent event) {
		this.node.leader(event.group()).ifPresent((leader) -> {
			Map<String, Object> news = new LinkedHashMap<>();
			news.put("group", leader.group());
			news.put("nodeId", leader.nodeId());
			news.put("address", leader.address());
			news.put("epoch", leader.epoch());
			news.put("leaseExpiresAt", leader.leaseExpiresAt().toEpochMilli());
			this.broadcaster.send(LEADER_ELECTED, news);
		});
	}

	/**
	 * Hands a notice received from another node to this node's engine (once it started).
	 */
	public void apply(ClusterBroadcastEvent event) {
		NoticeReceiver to = this.receiver;
		JsonNode payload = event.payloadTree();
		if (to != null && LEASE_RELEASED.equals(event.topic())) {
			String successor = payload.path("successor").asString(null);
			List<CompletableFuture<Void>> attempts = new ArrayList<>();
			released(to, payload, event.senderNodeId(), successor, attempts);
			for (JsonNode lease : payload.path("leases")) {
				released(to, lease, event.senderNodeId(), successor, attempts);
			}
			awaitBriefly(attempts);
			return;
		}
		if (to != null && ROSTER_CHANGED.equals(event.topic()) && payload.path("version").isIntegralNumber()) {
			to.rosterChanged(payload.path("version").asLong());
			return;
		}
		String group = payload.path("group").asString(null);
		if (to == null || group == null) {
			return;
		}
		if (LEADER_ELECTED.equals(event.topic()) && payload.path("leaseExpiresAt").isIntegralNumber()
				&& payload.path("nodeId").isString()) {
			to.leaderElected(new LeaderInfo(group, payload.path("nodeId").asString(),
					payload.path("address").asString(null), payload.path("epoch").asLong(),
					Instant.ofEpochMilli(payload.path("leaseExpiresAt").asLong())));
		}
	}

	private static void released(NoticeReceiver to, JsonNode lease, String sender, @Nullable String successor,
			List<CompletableFuture<Void>> attempts) {
		String group = lease.path("group").asString(null);
		if (group != null && lease.path("epoch").isIntegralNumber()) {
			attempts
				.add(to.leaseReleased(group, lease.path("epoch").asLong(), sender, successor).toCompletableFuture());
		}
	}

	/**
	 * Answers the sender once this node's attempts are over, or after
	 * {@link #ANSWER_WITHIN} at most: the sender releases its leases after the answer,
	 * and its release then keeps out of the way of the take-over in the store. Only ever
	 * on a thread that may block (the servlet's, or the reactive handler's
	 * bounded-elastic one).
	 */
	private static void awaitBriefly(List<CompletableFuture<Void>> attempts) {
		try {
			CompletableFuture.allOf(attempts.toArray(CompletableFuture[]::new))
				.get(ANSWER_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// the answer only paces the sender's release
		}
	}

}
