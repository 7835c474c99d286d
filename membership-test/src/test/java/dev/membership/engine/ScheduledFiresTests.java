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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
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
 * Scheduled fires on real threads and the test kit's in-memory store (renew 150 ms, lease
 * 600 ms): each fire of a job every 300 ms runs once, on the leader, at its instant by
 * the database's clock; the renewal after it records it; a crash of the leader loses none
 * (the next leader catches the missed one up), and a graceful hand-over runs none twice.
 */
@ExtendWith(FastPolling.class)
class ScheduledFiresTests {

	private static final Duration PERIOD = Duration.ofMillis(300);

	private static final String JOB = "jobs#every300ms";

	/** The run history as the nodes write it: the fires that did not run, with why. */
	private final List<RunRecord> history = new CopyOnWriteArrayList<>();

	private final TestCluster cluster = InMemoryStores.cluster().withNotices().recordingHistory(this.history, 1000);

	private final ExecutorService pool = Executors.newCachedThreadPool();

	/** Each fire's instant, with the nodes that ran it. */
	private final Map<Instant, List<String>> ran = new ConcurrentHashMap<>();

	private final List<String> lateness = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.cluster.close();
		this.pool.shutdownNow();
		this.cluster.recorder().assertSafe();
	}

	private AutoCloseable schedule(MembershipNode node) {
		return node.schedule(new ScheduledJob("default", JOB, FireSchedules.fixedRate(PERIOD, Duration.ZERO),
				FirePolicy.DEFAULTS, (fire) -> this.pool.execute(() -> run(node, fire))));
	}

	private void run(MembershipNode node, Fire fire) {
		LeadershipTerm.Execution execution = fire.tryBegin(false, Duration.ZERO);
		if (execution == null) {
			return;
		}
		try {
			assertThat(dev.membership.leadership.LeaderContext.currentFire()).contains(fire.instant());
			Instant now = node.serverTimeEstimate().orElseThrow();
			this.lateness.add(node.nodeId() + ":" + Duration.between(fire.instant(), now).toMillis());
			this.ran.computeIfAbsent(fire.instant(), (at) -> new CopyOnWriteArrayList<>()).add(node.nodeId());
		}
		finally {
			execution.close();
		}
	}

	/**
	 * With a partitioned group, a node renews its plain groups' leases with its
	 * partitions', in one call: the fires ride that one.
	 */
	private void partitioned(boolean partitioned) {
		if (partitioned) {
			this.cluster.customize((settings) -> settings.partitions("t", 2));
		}
	}

	@ParameterizedTest(name = "with a partitioned group: {0}")
	@ValueSource(booleans = { false, true })
	void eachFireRunsOnceOnTheLeaderAtItsInstantNeverEarlyAndIsRecordedInTheLease(boolean partitioned)
			throws Exception {
		partitioned(partitioned);
		MembershipNode leader = this.cluster.start("n1");
		// before n2 can race it
		await().atMost(Duration.ofSeconds(5)).until(() -> leader.isLeader("default"));
		MembershipNode follower = this.cluster.start("n2");
		try (AutoCloseable a = schedule(leader); AutoCloseable b = schedule(follower)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.size() >= 6);
		}
		assertThat(this.ran.values()).allSatisfy((nodes) -> assertThat(nodes).containsExactly("n1"));
		assertThat(this.history).as("no fire skipped: each armed once")
			.noneMatch((r) -> r.outcome() == RunOutcome.SKIPPED);
		assertThat(this.ran.keySet()).allSatisfy((at) -> assertThat(at.toEpochMilli() % PERIOD.toMillis()).isZero());
		assertThat(this.lateness).allSatisfy((late) -> assertThat(Long.parseLong(late.substring(3)))
			.as("never before its instant by the database's clock")
			.isNotNegative());
		// the history has each run with its fire's instant
		await().atMost(INTERVAL.multipliedBy(4))
			.until(() -> this.history.stream()
				.filter((r) -> r.job().equals(JOB) && r.outcome() == RunOutcome.SUCCESS && r.fireAt() != null)
				.map(RunRecord::fireAt)
				.toList()
				.containsAll(this.ran.keySet()));
		// the lease carries the last fire, ended, once a renewal after it landed
		await().atMost(INTERVAL.multipliedBy(4))
			.until(() -> this.cluster.store("n1")
				.findLease("default")
				.orElseThrow()
				.fires()
				.stream()
				.anyMatch((mark) -> mark.job().equals(JOB) && mark.ended()));
	}

	@ParameterizedTest(name = "with a partitioned group: {0}")
	@ValueSource(booleans = { false, true })
	void aCrashOfTheLeaderLosesNoFireTheNextLeaderCatchesItUp(boolean partitioned) throws Exception {
		partitioned(partitioned);
		MembershipNode first = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> first.isLeader("default"));
		MembershipNode second = this.cluster.start("n2");
		try (AutoCloseable a = schedule(first); AutoCloseable b = schedule(second)) {
			await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.size() >= 3);
			Instant lastBefore = this.ran.keySet().stream().max(Instant::compareTo).orElseThrow();
			first.halt(); // a crash: no release; the lease (600 ms) outlives two fires
			await().atMost(LEASE.multipliedBy(4)).until(() -> second.isLeader("default"));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.ran.keySet().stream().filter((at) -> at.isAfter(lastBefore)).count() >= 4);
			// none ran twice, and none was lost silently: every fire from the first to
			// the last either ran once or is in the history as missed (beyond its window
			// of one period, while no node led), with the reason
			assertThat(this.ran.values()).allSatisfy((nodes) -> assertThat(nodes).hasSize(1));
			Instant firstRun = this.ran.keySet().stream().min(Instant::compareTo).orElseThrow();
			Instant lastRun = this.ran.keySet().stream().max(Instant::compareTo).orElseThrow();
			await().atMost(INTERVAL.multipliedBy(4)).untilAsserted(() -> {
				for (Instant at = firstRun; !at.isAfter(lastRun); at = at.plus(PERIOD)) {
					Instant fire = at;
					assertThat(this.ran.containsKey(fire) || this.history.stream()
						.anyMatch((r) -> r.outcome() == RunOutcome.MISSED && !fire.isBefore(r.startedAt())
								&& !fire.isAfter(r.endedAt()) && r.job().equals(JOB) && r.error() != null))
						.as("the fire of %s ran or was recorded missed", fire)
						.isTrue();
				}
			});
			assertThat(this.ran.entrySet().stream().filter((e) -> e.getValue().contains("n2")).count()).isPositive();
			System.out.printf("fires after a crash: ran %s; recorded %s%n", new java.util.TreeMap<>(this.ran),
					this.history.stream()
						.filter((r) -> r.outcome() == RunOutcome.MISSED)
						.map((r) -> r.startedAt() + " " + r.error())
						.toList());
		}
	}

	@Test
	void aGracefulHandOverRightAfterAFireRunsNoneTwice() throws Exception {
		MembershipNode first = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> first.isLeader("default"));
		MembershipNode second = this.cluster.start("n2");
		try (AutoCloseable a = schedule(first); AutoCloseable b = schedule(second)) {
			for (int i = 0; i < 3; i++) {
				MembershipNode leader = first.isLeader("default") ? first : second;
				MembershipNode other = (leader == first) ? second : first;
				int before = this.ran.size();
				// a fire just ran
				await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.size() > before);
				Instant lastOfLeader = this.ran.keySet().stream().max(Instant::compareTo).orElseThrow();
				leader.operations().resign(new Resign("default", Requester.of("test")));
				await().atMost(Duration.ofSeconds(5)).until(() -> other.isLeader("default"));
				// the release carried the last fire, ended, to the next term, or the next
				// one, owed to it (nothing ran nor waited)
				assertThat(this.cluster.store(other.nodeId()).findLease("default").orElseThrow().fires())
					.anySatisfy((mark) -> {
						assertThat(mark.job()).isEqualTo(JOB);
						assertThat(mark.at()).isAfterOrEqualTo(lastOfLeader);
						assertThat(mark.ended() || mark.owed()).isTrue();
					});
				int handedOver = this.ran.size();
				await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.size() >= handedOver + 2);
			}
		}
		assertThat(this.ran.values()).allSatisfy((nodes) -> assertThat(nodes).hasSize(1));
		assertThat(this.ran.values().stream().flatMap(List::stream).distinct()).containsExactlyInAnyOrder("n1", "n2");
	}

	/**
	 * A strict fire whose record could not be written before its run (the store did not
	 * answer, within the lease) is missed, in the history with why, and the job's next
	 * fires run. Before: the fire stayed "running" for good, and every later fire was
	 * skipped as "the run of the fire of ... still runs", though nothing ran.
	 */
	@Test
	void aStrictFireWhoseRecordFailedIsMissedAndTheNextFiresRun() throws Exception {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("default"));
		FirePolicy strict = new FirePolicy(null, dev.membership.leadership.MissedFires.COALESCE,
				dev.membership.leadership.OverlappingFires.SKIP, dev.membership.leadership.FireMode.STRICT);
		try (AutoCloseable job = node
			.schedule(new ScheduledJob("default", JOB, FireSchedules.fixedRate(PERIOD, Duration.ZERO), strict,
					(fire) -> this.pool.execute(() -> run(node, fire))))) {
			await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.size() >= 2);
			this.cluster.store("n1").failFireRecords(1);
			await().atMost(Duration.ofSeconds(5)).until(() -> !missedStrict().isEmpty());
			int after = this.ran.size();
			await().atMost(Duration.ofSeconds(5)).until(() -> this.ran.size() >= after + 3);
		}
		assertThat(this.history).as("nothing skipped as still running")
			.noneMatch(
					(r) -> r.outcome() == RunOutcome.SKIPPED && r.error() != null && r.error().contains("still runs"));
		assertThat(this.ran.values()).allSatisfy((nodes) -> assertThat(nodes).hasSize(1));
	}

	private List<RunRecord> missedStrict() {
		return this.history.stream()
			.filter((r) -> r.outcome() == RunOutcome.MISSED && r.error() != null && r.error().contains("(STRICT)"))
			.toList();
	}

}
