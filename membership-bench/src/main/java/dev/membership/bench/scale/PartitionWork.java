package dev.membership.bench.scale;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.client.MongoDatabase;

import dev.membership.engine.MembershipNode;
import dev.membership.mongo.MongoRunHistory;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;

/**
 * Work for the partitions bench's nodes, so that their run history has something to
 * write: every half interval each node runs an empty task in every partition it owns
 * ({@code runIfOwner}), and its runs go to a MongoDB run history whose writes are counted
 * per node (each is one of the node's store calls too).
 */
final class PartitionWork implements AutoCloseable {

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor((r) -> {
		Thread thread = new Thread(r, "partition-work");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, AtomicLong> writes = new ConcurrentHashMap<>();

	/**
	 * The run history of node {@code nodeId}, in {@code database}, its writes counted.
	 */
	RunHistoryStore history(String nodeId, MongoDatabase database) {
		RunHistoryStore store = new MongoRunHistory(database, "clusterruns", Duration.ofDays(1), 100,
				Duration.ofSeconds(5));
		AtomicLong count = this.writes.computeIfAbsent(nodeId, (id) -> new AtomicLong());
		return new RunHistoryStore() {

			@Override
			public void initialize() {
				store.initialize();
			}

			@Override
			public void save(List<RunRecord> records) {
				count.incrementAndGet();
				store.save(records);
			}

			@Override
			public List<RunRecord> find(RunQuery query) {
				return store.find(query);
			}

		};
	}

	/**
	 * Runs an empty task in every partition of {@code group} that {@code node} owns,
	 * every {@code every}.
	 */
	void runOwned(MembershipNode node, String group, Duration every) {
		this.timer.scheduleWithFixedDelay(() -> {
			if (node.isRunning()) {
				node.partitions(group).owned().forEach((p) -> node.partitions(group).runIfOwner(p, () -> {
				}));
			}
		}, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
	}

	/** History writes of node {@code nodeId} so far. */
	long writes(String nodeId) {
		AtomicLong count = this.writes.get(nodeId);
		return (count != null) ? count.get() : 0;
	}

	@Override
	public void close() {
		this.timer.shutdownNow();
	}

}
