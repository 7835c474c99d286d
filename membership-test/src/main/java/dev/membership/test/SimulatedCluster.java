package dev.membership.test;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.springframework.aop.framework.ProxyFactory;

import dev.membership.engine.MembershipNode;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.liveness.Member;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.scheduling.LeaderOnlyInterceptor;
import dev.membership.spi.LeaderOnlyExecutionListener;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.PlacementPolicy;

/**
 * A cluster for tests, without a database and without waiting: the node under test, and
 * simulated peers, all real {@link MembershipNode}s on one
 * {@link InMemoryMembershipStore}, in virtual time. Time stands still unless a method
 * here moves it, so no lease runs out while a test looks; each method moves it as far as
 * the cluster needs to reach the state asked for (milliseconds of real time), and returns
 * once the node under test has published its events.
 * <p>
 * The node under test is alone when it starts, so it leads every group it competes for.
 * Everything that happens to it goes through the production code: the same elections,
 * epochs, hand-overs, events and interrupts.
 * <p>
 * Without Spring, {@link #start(MembershipSettings)} builds and starts the node under
 * test; in a Spring Boot test, {@code @AutoConfigureMembershipTest} puts the
 * application's node on a simulated cluster and makes this a bean.
 */
public final class SimulatedCluster implements AutoCloseable {

	/** The peer that takes a group over when {@link #revoke} does not say which one. */
	public static final String DEFAULT_PEER = "simulated-peer";

	/**
	 * How long real time may pass for work due at one instant of virtual time (listeners,
	 * leader-only work).
	 */
	private static final Duration REAL_TIMEOUT = Duration.ofSeconds(30);

	private final VirtualScheduler scheduler = new VirtualScheduler();

	private final VirtualTime time = new VirtualTime(Instant.now().truncatedTo(ChronoUnit.MILLIS), this.scheduler);

	private final VirtualDriver driver = new VirtualDriver(this.scheduler);

	private final VirtualRun run = new VirtualRun(this.time, this.driver, REAL_TIMEOUT);

	private final SimulatedDatabase database = new SimulatedDatabase(
			new InMemoryMembershipStore(this.time.wallClock()));

	/** Every node's placement: the default one, but for what a test pinned on a node. */
	private final PinnedPlacement placement = new PinnedPlacement();

	private final SimulatedPeers peers = new SimulatedPeers(this.database, this.time, this.driver, this.placement);

	private final SimulatedLeadership leadership = new SimulatedLeadership(this, this.database, this.placement,
			this.peers);

	private final SimulatedMembers members = new SimulatedMembers(this, this.peers, REAL_TIMEOUT);

	private final List<MembershipEvent> events = new CopyOnWriteArrayList<>();

	private final MembershipStore nodeStore = this.database.client(SimulatedDatabase.UNDER_TEST);

	private volatile Supplier<MembershipNode> node;

	private boolean ownsNode;

	SimulatedCluster() {
	}

	/**
	 * Builds the node under test from {@code settings}, starts it, and lets it make its
	 * first round: it then leads each of its groups. Close the cluster when done.
	 */
	public static SimulatedCluster start(MembershipSettings settings) {
		return start(settings, MembershipEventListener.none());
	}

	/**
	 * As {@link #start(MembershipSettings)}, with {@code listener} receiving the events
	 * of the node under test.
	 */
	public static SimulatedCluster start(MembershipSettings settings, MembershipEventListener listener) {
		SimulatedCluster cluster = new SimulatedCluster();
		MembershipNode node = MembershipNode.builder(settings, cluster.store())
			.clock(cluster.clock())
			.runtime(cluster.runtime())
			.advertisedAddress("127.0.0.1")
			.noticeChannel(cluster.noticeChannel())
			.placement(cluster.placement())
			.reaction(cluster::record)
			.listener(listener)
			.build();
		cluster.bind(() -> node);
		cluster.ownsNode = true;
		node.start();
		cluster.firstRound();
		return cluster;
	}

	// ------------------------------------------------------------------ wiring (the
	// Spring test configuration)

	/**
	 * The store the node under test uses: one client of the in-memory database, which
	 * {@link #revoke} can cut off.
	 */
	MembershipStore store() {
		return this.nodeStore;
	}

	VirtualTime clock() {
		return this.time;
	}

	NodeRuntime runtime() {
		return this.driver.runtime();
	}

	/**
	 * The node under test's notice channel: the cluster tells it of a released lease, as
	 * a peer's notice would.
	 */
	NoticeChannel noticeChannel() {
		return this.peers.noticeChannel(SimulatedDatabase.UNDER_TEST);
	}

	PlacementPolicy placement() {
		return this.placement;
	}

	PinnedPlacement pins() {
		return this.placement;
	}

	void bind(Supplier<MembershipNode> node) {
		this.node = node;
	}

	/**
	 * Stops the node under test gracefully, moving virtual time for it: the drain waits
	 * in real time (up to its timeout) for leader-only work still running, then the drain
	 * timer and the release happen as in production.
	 */
	void stopNode() {
		MembershipNode node = nodeIfAny();
		if (node == null || !node.isRunning()) {
			return;
		}
		CompletableFuture<Void> stopped = node.stopAsync(node.settings().leaseDuration());
		runUntil("the node under test has stopped", stopped::isDone);
	}

	/**
	 * Told of every event of the node under test (one of its reactions: peers have none).
	 */
	void record(MembershipEvent event) {
		this.events.add(event);
	}

	// ------------------------------------------------------------------ what tests see

	/** The node under test. */
	public MembershipNode node() {
		MembershipNode node = nodeIfAny();
		if (node == null) {
			throw new IllegalStateException(
					"No node under test: none started yet, or the application defines its " + "own Membership bean");
		}
		return node;
	}

	MembershipNode nodeIfAny() {
		Supplier<MembershipNode> supplier = this.node;
		return (supplier != null) ? supplier.get() : null;
	}

	/**
	 * Every event the node under test published, in order (what its listeners were
	 * given).
	 */
	public List<MembershipEvent> events() {
		return List.copyOf(this.events);
	}

	/** The events of one type the node under test published, in order. */
	public <E extends MembershipEvent> List<E> events(Class<E> type) {
		return this.events.stream().filter(type::isInstance).map(type::cast).toList();
	}

	/** Forgets the events recorded so far. */
	public void clearEvents() {
		this.events.clear();
	}

	/** Virtual time since the cluster began. */
	public Duration elapsed() {
		return Duration.ofNanos(this.time.nanoTime());
	}

	/**
	 * A proxy of {@code target} on which {@link LeaderOnly @LeaderOnly} works as it does
	 * in a Spring application, for tests without Spring: calls run only while the node
	 * under test leads the group. A subclass proxy: call methods on it, and read state
	 * from {@code target}.
	 */
	@SuppressWarnings("unchecked")
	public <T> T leaderOnly(T target) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvice(new LeaderOnlyInterceptor(this::node, () -> LeaderOnlyExecutionListener.none()));
		return (T) factory.getProxy(target.getClass().getClassLoader());
	}

	// ------------------------------------------------------------------ what tests do

	/**
	 * Makes the node under test the leader of {@code group} (joining it if needed) and
	 * returns its term. A peer that leads it resigns first, so the node takes over with a
	 * new epoch; does nothing when the node already leads.
	 */
	public LeadershipTerm elect(String group) {
		return this.leadership.elect(group);
	}

	/**
	 * Ends the node's leadership of {@code group} by resigning, and a peer
	 * ({@value #DEFAULT_PEER}) takes over, so the node stays a follower until
	 * {@link #elect}. Leader-only work that asked to be interrupted is; the rest is
	 * waited for (up to the drain timeout), as in production.
	 */
	public void revoke(String group) {
		revoke(group, RevocationReason.RESIGNED);
	}

	/**
	 * Ends the node's leadership of {@code group} for {@code reason}, through what causes
	 * it in production, and a peer ({@value #DEFAULT_PEER}) takes over, so the node stays
	 * a follower until {@link #elect}:
	 * <ul>
	 * <li>{@code RESIGNED}: the node resigns;</li>
	 * <li>{@code RENEWAL_DEADLINE_PASSED}: the database is out of reach for the node
	 * until its own deadline has passed and the peer has taken the lease. As in
	 * production, the node steps down from every group it leads; the peer takes
	 * {@code default} too, and the node takes back the groups it is alone in;</li>
	 * <li>{@code LEASE_LOST}: the lease goes behind the node's back, which it finds at
	 * its next renewal, and the peer takes it;</li>
	 * <li>{@code SHUTDOWN} is what stopping the node does: stop it (or close the
	 * application context) instead.</li>
	 * </ul>
	 */
	public void revoke(String group, RevocationReason reason) {
		this.leadership.revoke(group, reason);
	}

	/**
	 * Makes the peer {@code nodeId} (started if needed) the leader of {@code group}: the
	 * node under test resigns if it leads, as does any other peer; returns the leader as
	 * the node under test sees it.
	 */
	public LeaderInfo electOther(String group, String nodeId) {
		return this.leadership.electOther(group, nodeId);
	}

	/**
	 * The partitioned group {@code group} of the node under test
	 * ({@code membership.partitions.<group>}): assign a partition to the node, or revoke
	 * it, as the coordinator would.
	 */
	public SimulatedPartitions partitions(String group) {
		// fails for a group that is not partitioned, naming the property
		runningNode().partitions(group);
		return new SimulatedPartitions(this, group);
	}

	/**
	 * Starts a peer {@code nodeId} (no group but {@code default}) and waits until the
	 * node under test lists it live.
	 */
	public Member addMember(String nodeId) {
		return this.members.add(nodeId);
	}

	/**
	 * Stops the peer {@code nodeId} gracefully and waits until the node under test no
	 * longer lists it.
	 */
	public void removeMember(String nodeId) {
		this.members.remove(nodeId);
	}

	/**
	 * Stops the peer {@code nodeId} as a crash would, and waits (past the liveness
	 * window) until the node under test no longer lists it live; it stays listed, not
	 * live, until its document is removed after {@code dead-node-retention}.
	 */
	public void crashMember(String nodeId) {
		this.members.crash(nodeId);
	}

	/**
	 * Lets {@code duration} of virtual time pass: every renewal, heartbeat and timeout
	 * due meanwhile happens.
	 */
	public void advance(Duration duration) {
		this.run.advance(duration);
	}

	/**
	 * Stops the peers, and the node under test when this cluster started it, at once (as
	 * a crash would).
	 */
	@Override
	public void close() {
		if (this.ownsNode) {
			node().halt();
		}
		this.peers.haltAll();
		this.driver.close();
	}

	// ------------------------------------------------------------------ internals

	MembershipNode runningNode() {
		MembershipNode node = node();
		if (!node.isRunning()) {
			throw new IllegalStateException("The node under test is not running (not started yet, or stopped)");
		}
		settle();
		return node;
	}

	/**
	 * After the start: what is due now, and, when the node has partitioned groups, the
	 * rounds it takes alone to be placed every partition and own it.
	 */
	void firstRound() {
		settle();
		MembershipNode node = nodeIfAny();
		if (node != null && node.isRunning() && !node.partitionedGroups().isEmpty()) {
			runUntil("the node under test owns every partition",
					() -> node.partitionedGroups()
						.stream()
						.allMatch((group) -> node.partitions(group).owned().size() == node.partitions(group).count()));
		}
	}

	void settle() {
		this.run.settle();
	}

	MembershipNode peer(String nodeId) {
		return this.peers.peer(nodeId, node().settings());
	}

	/** Moves virtual time until {@code done}, as {@link VirtualRun#until} does. */
	void runUntil(String what, BooleanSupplier done) {
		this.run.until(node(), what, done);
	}

}
