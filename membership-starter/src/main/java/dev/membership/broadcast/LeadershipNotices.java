package dev.membership.broadcast;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import dev.membership.Membership;
import dev.membership.MembershipEvent;
import dev.membership.MembershipEventListener;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * Tells the other nodes about leadership at once instead of at their next tick: a released lease, a group's or a
 * partition's (so a follower takes over within milliseconds of a graceful stop, resign or move) and a new leader (so every node sees the change now); and
 * hands the notices other nodes send to this one's engine, as its {@link NoticeChannel}. Advisory only: the lease
 * document still decides. A reaction of the node, not an application listener, so that no application listener can
 * stop the notices.
 */
public class LeadershipNotices implements MembershipEventListener, NoticeChannel {

	public static final String LEASE_RELEASED = "membership.lease-released";

	public static final String LEADER_ELECTED = "membership.leader-elected";

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
		if (event instanceof LeaseReleasedEvent released) {
			onReleased(released);
		}
		else if (event instanceof PartitionReleasedEvent released) {
			// the partition's lease by its name: the node the placement hands it to takes it at once
			released(released.group() + "#" + released.partition(), released.epoch(), released.successor());
		}
		else if (event instanceof LeaderElectedEvent elected) {
			onElected(elected);
		}
	}

	private void onReleased(LeaseReleasedEvent event) {
		released(event.group(), event.epoch(), event.successor());
	}

	private void released(String lease, long epoch, @Nullable String successor) {
		Map<String, Object> news = new LinkedHashMap<>();
		news.put("group", lease);
		news.put("epoch", epoch);
		if (successor != null) {
			news.put("successor", successor);
		}
		this.broadcaster.send(LEASE_RELEASED, news);
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

	/** Hands a notice received from another node to this node's engine (once it started). */
	public void apply(ClusterBroadcastEvent event) {
		NoticeReceiver to = this.receiver;
		JsonNode payload = event.payloadTree();
		String group = payload.path("group").asString(null);
		if (to == null || group == null) {
			return;
		}
		if (LEASE_RELEASED.equals(event.topic()) && payload.path("epoch").isIntegralNumber()) {
			to.leaseReleased(group, payload.path("epoch").asLong(), event.senderNodeId(),
					payload.path("successor").asString(null));
		}
		else if (LEADER_ELECTED.equals(event.topic()) && payload.path("leaseExpiresAt").isIntegralNumber()
				&& payload.path("nodeId").isString()) {
			to.leaderElected(new LeaderInfo(group, payload.path("nodeId").asString(),
					payload.path("address").asString(null), payload.path("epoch").asLong(),
					Instant.ofEpochMilli(payload.path("leaseExpiresAt").asLong())));
		}
	}

}
