package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.scheduling.FireSchedules;
import dev.membership.spi.Fire;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;
import dev.membership.spi.ScheduledJob;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A partitioned group's scheduled job on real threads and the test kit's in-memory store:
 * each partition's owner fires it for that partition, each (partition, instant) once; a
 * rebalance that hands partitions over gracefully runs none twice, and a crash of an
 * owner loses none (the next owner catches the missed one up, or the history says it was
 * missed).
 */
@ExtendWith(FastPolling.class)
class PartitionFiresTests {

	private static final Duration PERIOD = Duration.ofMillis(300);

	private static final String JOB = "jobs#perPartition";

	private static final int PARTITIONS = 4;

	private final List<RunRecord> history = new CopyOnWriteArrayList<>();

	private final TestCluster cluster = InMemoryStores.cluster()
		.withNotices()
		.customize((settings) -> settings.partitions("t", PARTITIONS))
		.recordingHistory(this.history, 1000);

	private final ExecutorService pool = Executors.newCachedThreadPool();

	/** Each partition's fire ({@code p@instant}), with the nodes that ran it. */
	private final Map<String, List<String>> ran = new ConcurrentHashMap<>();

	@AfterEach
	void close() {
		this.cluster.close();
		this.pool.shutdownNow();
		this.cluster.recorder().assertSafe();
	}

	private AutoCloseable schedule(MembershipNode node) {
		return node.schedule(new ScheduledJob("t", JOB, FireSchedules.fixedRate(PERIOD, Duration.ZERO),
				FirePolicy.DEFAULTS, (fire) -> this.pool.execute(() -> run(node, fire))));
	}

	private void run(MembershipNode node, Fire fire) {
		LeadershipTerm.Execution execution = fire.tryBegin(false, Duration.ZERO);
		if (execution == null) {
			return;
		}
		try {
			Integer partition = fire.partition();
			assertThat(partition).isNotNull();
			LeadershipTerm term = LeaderContext.currentTerm();
			assertThat(term).isNotNull();
			assertThat(term.partition()).hasValue(partition.intValue());
			assertThat(term.epoch()).isEqualTo(fire.epoch());
			this.ran.computeIfAbsent(partition + "@" + fire.instant(), (k) -> new CopyOnWriteArrayList<>())
				.add(node.nodeId());
		}
		finally {
			execution.close();
		}
	}

	private long ranBy(String node) {
		return this.ran.values().stream().filter((nodes) -> nodes.contains(node)).count();
	}

	private long partitionsRunBy(String node) {
		return this.ran.entrySet()
			.stream()
			.filter((e) -> e.getValue().contains(node))
			.map((e) -> e.getKey().substring(0, e.getKey().indexOf('@')))
			.distinct()
			.count();
	}

	@Test
	void eachPartitionsFireRunsOnceAcrossARebalanceAndACrash() throws Exception {
		MembershipNode first = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> first.partitions("t").owned().size() == PARTITIONS);
		try (AutoCloseable a = schedule(first)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> partitionsRunBy("n1") == PARTITIONS);
			// a rebalance hands half the partitions over
			MembershipNode second = this.cluster.start("n2");
			try (AutoCloseable b = schedule(second)) {
				await().atMost(Duration.ofSeconds(10)).until(() -> partitionsRunBy("n2") == PARTITIONS / 2);
				long before = ranBy("n2");
				// a crash: its partitions' leases (600 ms) outlive two fires
				first.halt();
				await().atMost(LEASE.multipliedBy(10)).until(() -> second.partitions("t").owned().size() == PARTITIONS);
				await().atMost(Duration.ofSeconds(5)).until(() -> ranBy("n2") >= before + 4L * PARTITIONS);
			}
		}
		assertThat(this.ran.values()).as("each partition's fire ran on one node, once")
			.allSatisfy((nodes) -> assertThat(nodes).hasSize(1));
		assertThat(partitionsRunBy("n2")).isEqualTo(PARTITIONS);
		// none lost silently: per partition, every fire from its first to its last ran or
		// is recorded missed
		await().atMost(INTERVAL.multipliedBy(4)).untilAsserted(() -> {
			for (int p = 0; p < PARTITIONS; p++) {
				int partition = p;
				List<Instant> fires = this.ran.keySet()
					.stream()
					.filter((key) -> key.startsWith(partition + "@"))
					.map((key) -> Instant.parse(key.substring(key.indexOf('@') + 1)))
					.sorted()
					.toList();
				for (Instant at = fires.get(0); !at.isAfter(fires.get(fires.size() - 1)); at = at.plus(PERIOD)) {
					Instant fire = at;
					assertThat(fires.contains(fire) || this.history.stream()
						.anyMatch((r) -> r.outcome() == RunOutcome.MISSED && r.job().equals(JOB)
								&& Integer.valueOf(partition).equals(r.partition()) && !fire.isBefore(r.startedAt())
								&& !fire.isAfter(r.endedAt())))
						.as("partition %d's fire of %s ran or was recorded missed", partition, fire)
						.isTrue();
				}
			}
		});
		// the history has runs by partition, with their fires' instants
		assertThat(this.history).anySatisfy((r) -> {
			assertThat(r.job()).isEqualTo(JOB);
			assertThat(r.partition()).isNotNull();
			assertThat(r.fireAt()).isNotNull();
		});
	}

	@Test
	void theJobIsListedPerPartitionItsNodeFired() throws Exception {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.partitions("t").owned().size() == PARTITIONS);
		try (AutoCloseable a = schedule(node)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> partitionsRunBy("n1") == PARTITIONS);
			assertThat(node.scheduledJobs()).extracting((job) -> job.partition()).containsExactly(0, 1, 2, 3);
			assertThat(node.scheduledJobs()).allSatisfy((job) -> {
				assertThat(job.group()).isEqualTo("t");
				assertThat(job.job()).isEqualTo(JOB);
				assertThat(job.lastFire()).isNotNull();
			});
			// the partition's lease carries its fires
			await().atMost(INTERVAL.multipliedBy(4))
				.until(() -> this.cluster.store("n1")
					.findLease("t#0")
					.orElseThrow()
					.fires()
					.stream()
					.anyMatch((mark) -> mark.job().equals(JOB) && mark.ended()));
		}
	}

}
