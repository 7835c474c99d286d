package dev.membership.bench.idle;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.client.MongoDatabase;

import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.MongoStoreSettings;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.NodeRecord;

/**
 * The store calls an idle node's loop makes, without the node: on a thread of its own,
 * every renewal interval, the MongoDB store (membership-mongodb) renews a lease and reads
 * the node documents (what an idle keeper's tick calls), through the application's own
 * client. What it costs is what those two calls cost at that pace, cold caches and all;
 * the loop's own CPU beyond it is the engine's.
 */
final class StoreCallsAlone implements AutoCloseable {

	static final String THREAD = "store-calls-alone";

	private static final Duration LEASE = Duration.ofSeconds(15);

	private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor((r) -> {
		Thread t = new Thread(r, THREAD);
		t.setDaemon(true);
		return t;
	});

	private final AtomicLong cpuNanos = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	StoreCallsAlone(MongoDatabase database, Duration interval) {
		MongoMembershipStore store = new MongoMembershipStore(database,
				MongoStoreSettings.defaults().withCollections("alone_nodes", "alone_leases"));
		Holder holder = new Holder("alone", "alone-1", null);
		store.initialize();
		Instant now = store.serverTime().orElseGet(Instant::now);
		store.heartbeat(new NodeRecord("alone", "alone-1", null, now, now, List.of("default")));
		LeaseRecord lease = store.tryAcquire("default", holder, now, now.plus(LEASE))
			.orElseThrow(() -> new IllegalStateException("could not take the lease"));
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		this.thread.scheduleWithFixedDelay(() -> {
			long start = mx.getCurrentThreadCpuTime();
			try {
				// the stand-in runs on this machine's clock: this node's estimate of the
				// database's is its own
				if (store.renew("default", holder, lease.epoch(), Instant.now().plus(LEASE), null).isEmpty()
						|| store.findNodes().isEmpty()) {
					this.failures.incrementAndGet();
				}
			}
			catch (RuntimeException ex) {
				this.failures.incrementAndGet();
			}
			this.cpuNanos.addAndGet(mx.getCurrentThreadCpuTime() - start);
		}, interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** CPU time of the calls so far, in nanoseconds. */
	long cpuNanos() {
		return this.cpuNanos.get();
	}

	long failures() {
		return this.failures.get();
	}

	@Override
	public void close() {
		this.thread.shutdownNow();
	}

}
