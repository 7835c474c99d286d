package dev.membership.test;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.MembershipNode;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;
import dev.membership.spi.PlacementPolicy;

/**
 * The simulated peers of a {@link SimulatedCluster}: real nodes with the node under
 * test's timings on the same database, virtual clock and driver, and no address (the node
 * under test never reaches a peer over the network); and every node's notice receiver, so
 * that a released lease can be told to the one that should take it.
 */
final class SimulatedPeers {

	private final SimulatedDatabase database;

	private final VirtualTime time;

	private final VirtualDriver driver;

	private final PlacementPolicy placement;

	private final Map<String, MembershipNode> peers = new ConcurrentHashMap<>();

	/**
	 * Each node's notice receiver, by candidate ({@link SimulatedDatabase#UNDER_TEST} for
	 * the node under test).
	 */
	private final Map<String, NoticeReceiver> notices = new ConcurrentHashMap<>();

	/** Releases already told: node, group and epoch. */
	private final Set<String> nudged = ConcurrentHashMap.newKeySet();

	SimulatedPeers(SimulatedDatabase database, VirtualTime time, VirtualDriver driver, PlacementPolicy placement) {
		this.database = database;
		this.time = time;
		this.driver = driver;
		this.placement = placement;
	}

	/**
	 * The notice channel of {@code candidate}: the cluster tells it of a released lease,
	 * as a peer's notice would.
	 */
	NoticeChannel noticeChannel(String candidate) {
		return (receiver) -> this.notices.put(candidate, receiver);
	}

	/**
	 * The peer {@code nodeId}, started now with the timings of {@code like} if it is not
	 * running yet.
	 */
	MembershipNode peer(String nodeId, MembershipSettings like) {
		return this.peers.computeIfAbsent(nodeId, (id) -> {
			if (id.equals(like.nodeId())) {
				throw new IllegalArgumentException(id + " is the node under test");
			}
			MembershipSettings settings = MembershipSettings.builder(id)
				.renewalInterval(like.renewalInterval())
				.leaseDuration(like.leaseDuration())
				.livenessWindow(like.livenessWindow())
				.safetyMargin(like.safetyMargin())
				.deadNodeRetention(like.deadNodeRetention())
				.clockSyncInterval(like.clockSyncInterval())
				.drainTimeout(like.drainTimeout())
				.partitions(like.partitions())
				.build();
			MembershipNode peer = MembershipNode.builder(settings, this.database.client(id))
				.clock(this.time)
				.runtime(this.driver.runtime())
				.noticeChannel(noticeChannel(id))
				.placement(this.placement)
				.build();
			peer.start();
			return peer;
		});
	}

	/** The running peer {@code nodeId}; fails naming the peers there are. */
	MembershipNode existing(String nodeId) {
		MembershipNode peer = this.peers.get(nodeId);
		if (peer == null) {
			throw new IllegalArgumentException("No simulated peer '" + nodeId + "'; peers: " + this.peers.keySet());
		}
		return peer;
	}

	void remove(String nodeId) {
		this.peers.remove(nodeId);
	}

	void forEach(BiConsumer<String, MembershipNode> action) {
		this.peers.forEach(action);
	}

	/**
	 * Whether {@code node} (known to the database as {@code candidate}) leads
	 * {@code group}; when the lease was just released, tells it so once (as a leadership
	 * notice would), so that it takes the lease at once rather than whichever node's
	 * timer comes first.
	 */
	boolean takesOver(MembershipNode node, String candidate, String group) {
		if (node.isLeader(group)) {
			return true;
		}
		@Nullable NoticeReceiver receiver = this.notices.get(candidate);
		if (receiver == null) {
			return false;
		}
		this.database.data()
			.findLease(group)
			.filter((lease) -> !lease.expiresAt().isAfter(LeaseRecord.RELEASED))
			.filter((lease) -> this.nudged.add(node.nodeId() + "/" + group + "/" + lease.epoch()))
			.ifPresent((lease) -> receiver.leaseReleased(group, lease.epoch(),
					(lease.holder() != null) ? lease.holder().nodeId() : null, null));
		return false;
	}

	/** Stops every peer at once, as a crash would. */
	void haltAll() {
		this.peers.values().forEach(MembershipNode::halt);
		this.peers.clear();
	}

}
