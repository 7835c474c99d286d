package dev.membership.bench.scale;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.mongodb.client.MongoClient;

import dev.membership.MembershipNode;
import dev.membership.MembershipSettings;
import dev.membership.actuate.ClusterEndpoint;
import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.CommandCounter;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.liveness.Member;
import dev.membership.store.MembershipStore;
import dev.membership.store.mongo.MongoMembershipStore;

/**
 * Scale: N plain-Java nodes in this JVM against one embedded server, renewing every second. Store operations per
 * second, how long a new node takes to appear in every node's member list, how long the member listing takes (the
 * store query each node makes per interval, and the in-memory view {@code /actuator/cluster} renders), heap per node.
 */
public final class ScaleScenario {

	public record Settings(List<Integer> sizes, Duration window, int joins) {
	}

	private static final String SCALE_NOTE = "Renew every 1 s, lease 3 s, liveness window 2 s. All nodes share one "
			+ "MongoDB client (a process per node would each have its own). Store ops/s: commands the client sent in "
			+ "the window. Listing: the nodes' own findNodes calls during the window (store round trip), and "
			+ "ClusterEndpoint.cluster() on one node (what /actuator/cluster renders, from memory). Join: from start() "
			+ "of a new node until every node lists it as live. Heap: used heap after GC, with the nodes minus before.";

	private final Settings settings;

	private final PrintStream log;

	public ScaleScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		Table table = new Table("Scale (one JVM, one embedded server, window " + this.settings.window().toSeconds()
				+ " s)", "nodes", "store ops/s", "ops/node/interval", "join visible everywhere median / max ms",
				"findNodes p50 / p99 ms", "cluster view p50 / p99 us", "heap/node KiB");
		for (int size : this.settings.sizes()) {
			runSize(size, table);
		}
		table.note(SCALE_NOTE);
		return table;
	}

	static MembershipSettings settings(String id) {
		return MembershipSettings.builder(id)
			.renewalInterval(Duration.ofSeconds(1))
			.leaseDuration(Duration.ofSeconds(3))
			.livenessWindow(Duration.ofSeconds(2))
			.build();
	}

	private void runSize(int size, Table table) {
		Queue<Long> listingNanos = new ConcurrentLinkedQueue<>();
		CommandCounter counter = new CommandCounter();
		List<MembershipNode> nodes = new ArrayList<>();
		try (EmbeddedMongoServer server = new EmbeddedMongoServer(); MongoClient client = server.newClient(counter)) {
			client.getDatabase("bench").listCollectionNames().first(); // connect before the heap baseline
			long heapBefore = usedHeapAfterGc();
			for (int i = 0; i < size; i++) {
				nodes.add(startNode("node-" + i, client, listingNanos));
			}
			Duration settle = Duration.ofSeconds(30 + size / 5);
			Waits.until(size + " nodes to see each other", settle,
					() -> nodes.stream().allMatch((n) -> n.liveMembers().size() == size));
			long heapAfter = usedHeapAfterGc();
			this.log.printf("  %d nodes up; counting for %s%n", size, this.settings.window());

			counter.reset();
			listingNanos.clear();
			long started = System.nanoTime();
			Waits.pause(this.settings.window());
			double seconds = (System.nanoTime() - started) / 1e9;
			long commands = counter.total();
			Stats listing = new Stats(listingNanos.stream().map((n) -> n / 1e6).toList());

			ClusterEndpoint endpoint = new ClusterEndpoint(nodes.get(0));
			List<Double> viewMicros = new ArrayList<>();
			for (int i = 0; i < 2000; i++) {
				long t = System.nanoTime();
				endpoint.cluster();
				viewMicros.add((System.nanoTime() - t) / 1e3);
			}
			Stats view = new Stats(viewMicros.subList(1000, 2000)); // the first thousand warm the JIT

			List<Double> joins = new ArrayList<>();
			for (int j = 0; j < this.settings.joins(); j++) {
				String id = "joiner-" + j;
				long t = System.nanoTime();
				nodes.add(startNode(id, client, new ConcurrentLinkedQueue<>()));
				Waits.until(id + " to be listed everywhere", settle,
						() -> nodes.stream().allMatch((n) -> isListedLive(n, id)));
				joins.add((System.nanoTime() - t) / 1e6);
			}
			Stats join = new Stats(joins);
			table.row(size, Table.num(commands / seconds, 0),
					Table.num(commands / seconds / size, 2),
					Table.ms(join.median()) + " / " + Table.ms(join.max()),
					Table.num(listing.median(), 2) + " / " + Table.num(listing.percentile(99), 2),
					Table.num(view.median(), 1) + " / " + Table.num(view.percentile(99), 1),
					Table.num((heapAfter - heapBefore) / 1024.0 / size, 1));
		}
		finally {
			nodes.forEach(MembershipNode::halt);
		}
	}

	private static boolean isListedLive(MembershipNode node, String id) {
		for (Member m : node.liveMembers()) {
			if (m.nodeId().equals(id)) {
				return true;
			}
		}
		return false;
	}

	private static MembershipNode startNode(String id, MongoClient client, Queue<Long> listingNanos) {
		MembershipSettings settings = settings(id);
		MembershipStore store = timedListing(
				new MongoMembershipStore(client.getDatabase("bench"), BenchNode.storeSettings(settings)), listingNanos);
		MembershipNode node = MembershipNode.builder(settings, store).advertisedAddress("127.0.0.1").build();
		node.start();
		return node;
	}

	/** The store, with the duration of every findNodes call recorded. */
	private static MembershipStore timedListing(MembershipStore store, Queue<Long> listingNanos) {
		return (MembershipStore) Proxy.newProxyInstance(MembershipStore.class.getClassLoader(),
				new Class<?>[] { MembershipStore.class }, (proxy, method, args) -> {
					long t = System.nanoTime();
					try {
						return method.invoke(store, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
					finally {
						if (method.getName().equals("findNodes")) {
							listingNanos.add(System.nanoTime() - t);
						}
					}
				});
	}

	private static long usedHeapAfterGc() {
		MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
		for (int i = 0; i < 3; i++) {
			System.gc();
			Waits.pause(Duration.ofMillis(100));
		}
		return memory.getHeapMemoryUsage().getUsed();
	}

}
