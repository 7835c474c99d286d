package dev.membership.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import dev.membership.engine.MembershipNode;
import dev.membership.engine.MembershipNodeBuilder;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;

/**
 * Plain-Java nodes in this JVM on one store, each with its own view of it (as separate
 * processes have their own clients: {@link Stores}), fault-injectable, and short timings.
 * All nodes report to one {@link LeadershipRecorder}. The engine's behaviour tests run on
 * it with the test kit's in-memory store; a store's module runs them on its own.
 */
public final class TestCluster implements AutoCloseable {

	/** Where a cluster's nodes keep their data: one view of one store per node. */
	public interface Stores extends AutoCloseable {

		/**
		 * A view of the store under {@code namespace} (every node of a cluster has the
		 * same), of a node of its own: a client of its own, as a process has.
		 */
		MembershipStore create(String namespace);

		@Override
		default void close() {
		}

	}

	public static final Duration INTERVAL = Duration.ofMillis(150);

	public static final Duration LEASE = Duration.ofMillis(600);

	public static final Duration LIVENESS = Duration.ofMillis(400);

	public static final Duration OPERATION_TIMEOUT = Duration.ofMillis(300);

	private static int namespaces;

	private final Stores backing;

	private final String namespace;

	private final LeadershipRecorder recorder = new LeadershipRecorder();

	private final Map<String, MembershipNode> nodes = new ConcurrentHashMap<>();

	private final Map<String, FaultInjectingStore> stores = new ConcurrentHashMap<>();

	private final Map<String, List<MembershipEvent>> events = new ConcurrentHashMap<>();

	private final Map<String, NoticeReceiver> receivers = new ConcurrentHashMap<>();

	private volatile boolean notices;

	private Consumer<MembershipSettings.Builder> customizer = (b) -> {
	};

	private Consumer<MembershipNodeBuilder> nodeCustomizer = (builder) -> {
	};

	private final Map<String, Integer> rosterNotices = new ConcurrentHashMap<>();

	public TestCluster(Stores stores) {
		this.backing = stores;
		synchronized (TestCluster.class) {
			this.namespace = "cluster" + (++namespaces);
		}
	}

	/**
	 * Nodes tell each other of released leases at once, as LeadershipNotices does over
	 * HTTP.
	 */
	public TestCluster withNotices() {
		this.notices = true;
		return this;
	}

	public TestCluster customize(Consumer<MembershipSettings.Builder> customizer) {
		this.customizer = customizer;
		return this;
	}

	/** Applied to every node's builder before it is built (observers of runs, say). */
	/**
	 * Every node's run history goes to {@code into} (nothing is read back), written in
	 * batches of up to {@code batch} records.
	 */
	public TestCluster recordingHistory(List<dev.membership.spi.RunRecord> into, int batch) {
		return customizeNodes((builder) -> builder.runHistory(new dev.membership.spi.RunHistoryStore() {
			@Override
			public void initialize() {
			}

			@Override
			public void save(List<dev.membership.spi.RunRecord> records) {
				into.addAll(records);
			}

			@Override
			public List<dev.membership.spi.RunRecord> find(dev.membership.spi.RunQuery query) {
				return List.of();
			}
		}, batch));
	}

	public TestCluster customizeNodes(Consumer<MembershipNodeBuilder> customizer) {
		this.nodeCustomizer = customizer;
		return this;
	}

	public LeadershipRecorder recorder() {
		return this.recorder;
	}

	public String namespace() {
		return this.namespace;
	}

	public MembershipNode create(String nodeId) {
		return create(nodeId, nodeId, (event) -> {
		});
	}

	/**
	 * A node whose events also go to {@code listener}, after the cluster's own recording.
	 */
	public MembershipNode start(String nodeId, MembershipEventListener listener) {
		MembershipNode node = create(nodeId, nodeId, listener);
		node.start();
		return node;
	}

	/**
	 * A second process started with the same node id by mistake; the first keeps running.
	 */
	public MembershipNode createTwin(String nodeId) {
		return create(nodeId, nodeId + "#twin", (event) -> {
		});
	}

	private MembershipNode create(String nodeId, String key, MembershipEventListener extra) {
		FaultInjectingStore store = new FaultInjectingStore(this.backing.create(this.namespace));
		MembershipSettings.Builder settings = MembershipSettings.builder(nodeId)
			.renewalInterval(INTERVAL)
			.leaseDuration(LEASE)
			.livenessWindow(LIVENESS);
		this.customizer.accept(settings);
		List<MembershipEvent> received = new CopyOnWriteArrayList<>();
		MembershipNodeBuilder builder = MembershipNode.builder(settings.build(), store);
		this.nodeCustomizer.accept(builder);
		MembershipNode node = builder.advertisedAddress("127.0.0.1:" + (10000 + Math.abs(nodeId.hashCode() % 10000)))
			.observer(this.recorder)
			.noticeChannel(new NoticeChannel() {

				@Override
				public void connect(NoticeReceiver receiver) {
					TestCluster.this.receivers.put(key, receiver);
				}

				@Override
				public void letGo(Map<String, Long> leases, String successor) {
					// as LeadershipNotices does: what the node let go of, told to the
					// others as the node says it
					TestCluster.this.letGoNotices.merge(nodeId, leases.size(), Integer::sum);
					if (TestCluster.this.notices) {
						leases.forEach((lease, epoch) -> tellOthers(key, lease, epoch, nodeId, successor));
					}
				}

				@Override
				public void rosterChanged(long version, Set<String> nodes) {
					if (TestCluster.this.notices) {
						nodes.forEach((node) -> TestCluster.this.rosterNotices.merge(node, 1, Integer::sum));
						nodes.stream()
							.map(TestCluster.this.receivers::get)
							.filter(Objects::nonNull)
							.forEach((receiver) -> receiver.rosterChanged(version));
					}
				}

			})
			.listener((event) -> {
				received.add(event);
				extra.onEvent(event);
			})
			.build();
		MembershipNode previous = this.nodes.put(key, node);
		if (previous != null) {
			previous.halt();
		}
		this.stores.put(key, store);
		this.events.put(key, received);
		return node;
	}

	private void tellOthers(String key, String lease, long epoch, String holder, String successor) {
		this.receivers.forEach((other, receiver) -> {
			if (!other.equals(key)) {
				receiver.leaseReleased(lease, epoch, holder, successor);
			}
		});
	}

	private final Map<String, Integer> letGoNotices = new java.util.concurrent.ConcurrentHashMap<>();

	/** How many leases node {@code nodeId} said it let go of, notices on or off. */
	public int letGoNoticesFrom(String nodeId) {
		return this.letGoNotices.getOrDefault(nodeId, 0);
	}

	/** How many roster notices a keeper sent node {@code nodeId} (with notices on). */
	public int rosterNoticesTo(String nodeId) {
		return this.rosterNotices.getOrDefault(nodeId, 0);
	}

	/** Where node {@code nodeId} hears the others' notices, once it started. */
	public NoticeReceiver receiver(String nodeId) {
		return this.receivers.get(nodeId);
	}

	public MembershipNode start(String nodeId) {
		MembershipNode node = create(nodeId);
		node.start();
		return node;
	}

	public MembershipNode node(String nodeId) {
		return this.nodes.get(nodeId);
	}

	public FaultInjectingStore store(String nodeId) {
		return this.stores.get(nodeId);
	}

	public List<MembershipEvent> events(String nodeId) {
		return this.events.get(nodeId);
	}

	public List<MembershipNode> running() {
		return this.nodes.values().stream().filter(MembershipNode::isRunning).toList();
	}

	public List<MembershipNode> leaders(String group) {
		return running().stream().filter((n) -> n.isLeader(group)).toList();
	}

	public Optional<MembershipNode> leader() {
		List<MembershipNode> leaders = leaders(MembershipSettings.DEFAULT_GROUP);
		return (leaders.size() == 1) ? Optional.of(leaders.get(0)) : Optional.empty();
	}

	public void healAll() {
		this.stores.values().forEach(FaultInjectingStore::heal);
	}

	@Override
	public void close() {
		healAll();
		List<MembershipNode> all = new ArrayList<>(this.nodes.values());
		all.forEach(MembershipNode::halt);
		this.backing.close();
	}

}
