package dev.membership.engine;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.LeadershipRecorder;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The batched renewal on a store's own writes and reads (the MongoDB stand-in; the
 * engine's other tests of partitions run on the in-memory store): a node with a
 * partitioned group renews its plain groups and its partitions in one {@code renewAll}
 * per interval, each confirmed by the interval's read of the leases, so that over many
 * leases no term ends and no epoch moves.
 */
class BatchedRenewalTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final TestCluster cluster = mongo.cluster()
		.customize((settings) -> settings.partitions("t", 4).groups(Set.of("reports")));

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void groupsAndPartitionsStayHeldOnOneRenewalCallPerInterval() {
		this.cluster.start("n1");
		this.cluster.start("n2");
		// settled: each node two partitions, and no term begun or ended over a lease (the
		// placement moves plain groups too, after the partitions)
		List<List<LeadershipRecorder.Interval>> seen = new java.util.ArrayList<>(List.of(List.of()));
		await().atMost(LEASE.multipliedBy(30)).pollInterval(LEASE).until(() -> {
			List<LeadershipRecorder.Interval> now = this.cluster.recorder().intervals();
			boolean still = now.equals(seen.set(0, now));
			return still && this.cluster.leaders("default").size() == 1 && this.cluster.leaders("reports").size() == 1
					&& this.cluster.running().stream().allMatch((n) -> n.ownedTerms("t").size() == 2);
		});
		List<LeadershipRecorder.Interval> held = this.cluster.recorder().intervals();
		int[] calls = { this.cluster.store("n1").renewAllCalls().size(),
				this.cluster.store("n2").renewAllCalls().size() };
		Duration steady = LEASE.multipliedBy(6);
		// bounded: the recorder's intervals change only when a term begins or ends
		await().during(steady).atMost(steady.plus(LEASE)).until(() -> this.cluster.recorder().intervals().equals(held));
		long intervals = steady.toNanos() / INTERVAL.toNanos();
		assertThat(this.cluster.store("n1").renewAllCalls().size() - calls[0])
			.as("one renewAll per interval, every held lease in it")
			.isBetween((int) (intervals / 2), (int) (intervals + 2));
		assertThat(this.cluster.store("n2").renewAllCalls().size() - calls[1]).isBetween((int) (intervals / 2),
				(int) (intervals + 2));
		assertThat(held).filteredOn((interval) -> interval.endNanos() == Long.MAX_VALUE)
			.as("held all along: default, reports and the four partitions")
			.hasSize(6);
	}

}
