package dev.membership.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.membership.engine.term.Term;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.mongo.EpochFence;
import dev.membership.mongo.FencedWriteResult;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.ExecutionRecorder;
import dev.membership.testsupport.ExecutionRecorder.Execution;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.JobRunner;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader-only work, not only beliefs: every node runs a job on a scheduler, and an
 * {@link ExecutionRecorder} notes when each run really started and ended, so that the
 * tests can assert that runs of one group never overlapped across nodes through graceful
 * stops, resigns and rolling restarts (renew 150 ms, lease 600 ms).
 */
@ExtendWith({ FastPolling.class, OutputCaptureExtension.class })
class LeaderOnlyWorkTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	/** Longer than the lease: a drain has to keep renewing. */
	private static final Duration LONG_WORK = LEASE.multipliedBy(3).dividedBy(2);

	private EmbeddedMongo mongo;

	private TestCluster cluster;

	private final ExecutionRecorder executions = new ExecutionRecorder();

	private final List<JobRunner> runners = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.mongo = new EmbeddedMongo();
		this.cluster = this.mongo.cluster();
	}

	@AfterEach
	void tearDown() {
		this.runners.forEach(JobRunner::close);
		this.cluster.close();
		this.mongo.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void aGracefulStopWaitsForTheRunningJobAndHandsOverRightAfterIt() {
		MembershipNode leader = startWithJobs(3, LONG_WORK, false);
		awaitRunOn(leader);
		long stopCalled = System.nanoTime();
		leader.stop(Duration.ofSeconds(2));
		long stopReturned = System.nanoTime();
		Execution last = this.executions.last(leader.nodeId()).orElseThrow();
		assertThat(last.endNanos()).as("the run ended before stop() returned").isLessThanOrEqualTo(stopReturned);
		assertThat(last.endNanos()).as("stop() waited for the run").isGreaterThan(stopCalled);
		Execution next = awaitFirstRunAfter(leader);
		System.out.printf("graceful stop mid-run: old run ended %d ms after stop(), next run on %s %d ms after it%n",
				(last.endNanos() - stopCalled) / 1_000_000, next.nodeId(),
				(next.startNanos() - last.endNanos()) / 1_000_000);
		this.executions.assertNoOverlap();
		this.executions.assertWithinBeliefs(this.cluster.recorder());
		assertThat(revocations(leader)).containsExactly(RevocationReason.SHUTDOWN);
	}

	@Test
	void aSecondStopWhileTheFirstDrainsReturnsOnlyWhenTheFirstIsDone() throws Exception {
		MembershipNode leader = startWithJobs(2, LONG_WORK, false);
		awaitRunOn(leader);
		Thread first = new Thread(() -> leader.stop(Duration.ofSeconds(2)), "first-stop");
		first.start();
		// draining
		await().atMost(Duration.ofSeconds(2)).until(() -> !leader.isRunning());
		long secondCalled = System.nanoTime();
		// as Spring's destroy callback would, after the lifecycle stop
		leader.stop(Duration.ofSeconds(2));
		long secondReturned = System.nanoTime();
		// not held up until its own time-out (drain timeout + 2 s): it returned with the
		// first
		assertThat(Duration.ofNanos(secondReturned - secondCalled)).isLessThan(Duration.ofSeconds(10));
		Execution last = this.executions.last(leader.nodeId()).orElseThrow();
		assertThat(last.isRunning()).as("the run ended before the second stop returned").isFalse();
		assertThat(last.endNanos()).isLessThanOrEqualTo(secondReturned);
		first.join(5000);
		assertThat(first.isAlive()).isFalse();
		awaitFirstRunAfter(leader);
		this.executions.assertNoOverlap();
		this.executions.assertWithinBeliefs(this.cluster.recorder());
	}

	@Test
	void aGracefulStopInterruptsInterruptibleWorkAndHandsOverAtOnce() {
		MembershipNode leader = startWithJobs(3, Duration.ofSeconds(30), true);
		awaitRunOn(leader);
		long stopCalled = System.nanoTime();
		leader.stop(Duration.ofSeconds(2));
		Execution last = this.executions.last(leader.nodeId()).orElseThrow();
		assertThat(Duration.ofNanos(last.endNanos() - stopCalled)).as("interrupted, not run to its end")
			.isLessThan(LEASE);
		awaitFirstRunAfter(leader);
		this.executions.assertNoOverlap();
		this.executions.assertWithinBeliefs(this.cluster.recorder());
	}

	@Test
	void resignLetsTheRunningJobFinishStartsNoNewOneAndThenHandsOver() {
		MembershipNode leader = startWithJobs(3, LONG_WORK, false);
		awaitRunOn(leader);
		leader.operations().resign(new Resign(GROUP, Requester.of("test")));
		// still leading while its run finishes, but no new leader-only work starts there
		assertThat(leader.isLeader(GROUP)).isTrue();
		assertThat(leader.runIfLeader(GROUP, () -> {
		})).isFalse();
		assertThat(leader.currentTerm(GROUP).orElseThrow().isEnding()).isTrue();
		Execution next = awaitFirstRunAfter(leader);
		assertThat(next.startNanos()).isGreaterThanOrEqualTo(this.executions.last(leader.nodeId())
			.filter((e) -> e.epoch() < next.epoch())
			.map(Execution::endNanos)
			.orElseThrow());
		assertThat(leader.isLeader(GROUP)).isFalse();
		this.executions.assertNoOverlap();
		this.executions.assertWithinBeliefs(this.cluster.recorder());
		assertThat(revocations(leader)).containsExactly(RevocationReason.RESIGNED);
	}

	@Test
	void aRollingRestartOfEveryNodeNeverRunsTheJobTwiceAtOnce() {
		startWithJobs(3, LEASE.dividedBy(2), false);
		List<String> original = List.of("n1", "n2", "n3");
		for (String id : original) {
			MembershipNode old = this.cluster.node(id);
			old.stop(Duration.ofSeconds(2));
			MembershipNode replacement = this.cluster.start(id + "-restarted");
			this.runners.add(JobRunner.start(replacement, GROUP, LEASE.dividedBy(2), false, this.executions));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> this.cluster.leaders(GROUP).size() == 1
						&& this.cluster.running().stream().allMatch((n) -> n.liveMembers().size() == 3));
			MembershipNode leader = this.cluster.leaders(GROUP).get(0);
			awaitRunOn(leader);
		}
		long leaders = this.executions.executions().stream().map(Execution::nodeId).distinct().count();
		System.out.printf("rolling restart: %d runs on %d leaders, none overlapping%n",
				this.executions.executions().size(), leaders);
		assertThat(leaders).isGreaterThanOrEqualTo(2);
		this.executions.assertNoOverlap();
		this.executions.assertWithinBeliefs(this.cluster.recorder());
	}

	@Test
	void aDrainThatTimesOutHandsOverAnywayAndSaysWhatStillRuns(CapturedOutput output) {
		Duration drainTimeout = Duration.ofMillis(200);
		this.cluster.customize((settings) -> settings.drainTimeout(drainTimeout));
		MembershipNode leader = startWithJobs(3, Duration.ofSeconds(2), false);
		awaitRunOn(leader);
		long stopCalled = System.nanoTime();
		leader.stop(Duration.ofSeconds(2));
		assertThat(Duration.ofNanos(System.nanoTime() - stopCalled)).isLessThan(Duration.ofSeconds(1));
		assertThat(output).contains("hands group 'default' over after waiting PT0.2S for leader-only work that is "
				+ "still running: [job]");
		awaitFirstRunAfter(leader);
		// an overlap is now possible, but never one that began before the drain timed out
		for (List<Execution> overlap : this.executions.overlaps()) {
			assertThat(overlap.get(1).startNanos()).isGreaterThanOrEqualTo(stopCalled + drainTimeout.toNanos());
		}
	}

	@Test
	void aCapturedTermStaysValidAcrossRenewalsAndTurnsInvalidAtRevocation() {
		MembershipNode node = this.cluster.start("solo");
		await().atMost(Duration.ofSeconds(3)).until(() -> node.isLeader(GROUP));
		LeadershipTerm captured = node.currentTerm(GROUP).orElseThrow();
		long firstDeadline = ((Term) captured).deadlineNanos();
		List<Long> deadlines = new ArrayList<>(List.of(firstDeadline));
		await().atMost(LEASE.multipliedBy(4)).untilAsserted(() -> {
			assertThat(captured.isValid()).isTrue();
			long deadline = ((Term) captured).deadlineNanos();
			if (deadline != deadlines.get(deadlines.size() - 1)) {
				deadlines.add(deadline);
			}
			assertThat(deadlines).hasSizeGreaterThan(3);
		});
		// and past the deadline it had when captured, still valid and with time remaining
		await().atMost(LEASE.multipliedBy(2)).until(() -> System.nanoTime() > firstDeadline);
		assertThat(captured.isValid()).isTrue();
		assertThat(captured.remaining()).isPositive();
		assertThat(node.currentTerm(GROUP)).containsSame(captured);

		node.operations().resign(new Resign(GROUP, Requester.of("test")));
		await().atMost(LEASE).until(() -> !captured.isValid());
		assertThat(captured.remaining()).isZero();
		assertThat(node.tryBegin(captured, "late", false)).isNull();
	}

	@Test
	void aPausedOldLeadersFencedWriteIsRejectedAfterANewerLeaderWrote() throws Exception {
		startWithJobs(3, Duration.ZERO, false);
		this.runners.forEach(JobRunner::close);
		MembershipNode old = this.cluster.leaders(GROUP).get(0);
		try (MongoClient client = this.mongo.newClient()) {
			MongoCollection<Document> reports = client.getDatabase("fencing").getCollection(this.cluster.namespace());
			CountDownLatch checkedAndPaused = new CountDownLatch(1);
			CountDownLatch resume = new CountDownLatch(1);
			AtomicReference<FencedWriteResult> late = new AtomicReference<>();
			Thread job = new Thread(() -> old.runIfLeader(GROUP, () -> {
				// it leads, and now it stalls (a long GC pause, say) before writing
				checkedAndPaused.countDown();
				try {
					resume.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				late.set(EpochFence.of(LeaderContext.currentTerm())
					.updateOne(reports, Filters.eq("_id", "report"), Updates.set("writtenBy", old.nodeId()),
							new UpdateOptions().upsert(true)));
			}));
			job.start();
			assertThat(checkedAndPaused.await(5, TimeUnit.SECONDS)).isTrue();
			long oldEpoch = old.currentTerm(GROUP).orElseThrow().epoch();
			// it can no longer renew: it steps down, another takes over
			this.cluster.store(old.nodeId()).hang();
			await().atMost(LEASE.multipliedBy(4))
				.until(() -> this.cluster.leaders(GROUP).size() == 1 && !old.isLeader(GROUP));
			MembershipNode successor = this.cluster.leaders(GROUP).get(0);
			AtomicReference<FencedWriteResult> current = new AtomicReference<>();
			assertThat(successor.runIfLeader(GROUP,
					() -> current.set(EpochFence.of(LeaderContext.currentTerm())
						.updateOne(reports, Filters.eq("_id", "report"), Updates.set("writtenBy", successor.nodeId()),
								new UpdateOptions().upsert(true)))))
				.isTrue();
			assertThat(current.get().applied()).isTrue();
			long newEpoch = successor.currentTerm(GROUP).orElseThrow().epoch();
			assertThat(newEpoch).isGreaterThan(oldEpoch);

			resume.countDown();
			job.join(5000);
			assertThat(late.get().applied()).isFalse();
			assertThat(late.get().isFencedOut()).isTrue();
			assertThat(late.get().supersededBy()).hasValue(newEpoch);
			Document report = reports.find(Filters.eq("_id", "report")).first();
			assertThat(report.getString("writtenBy")).isEqualTo(successor.nodeId());
			assertThat(report.get("_fence", Document.class).get("default", Number.class).longValue())
				.isEqualTo(newEpoch);
		}
	}

	// ------------------------------------------------------------------ helpers

	/** Starts {@code size} nodes, each running the job; returns the leader. */
	private MembershipNode startWithJobs(int size, Duration work, boolean interruptible) {
		for (int i = 1; i <= size; i++) {
			MembershipNode node = this.cluster.start("n" + i);
			this.runners.add(JobRunner.start(node, GROUP, work, interruptible, this.executions));
		}
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.cluster.leaders(GROUP).size() == 1
					&& this.cluster.running().stream().allMatch((n) -> n.liveMembers().size() == size));
		return this.cluster.leaders(GROUP).get(0);
	}

	private void awaitRunOn(MembershipNode node) {
		await().atMost(Duration.ofSeconds(5)).until(() -> this.executions.isRunning(node.nodeId()));
	}

	/** The first run of a later epoch than the last run of {@code old}. */
	private Execution awaitFirstRunAfter(MembershipNode old) {
		long epoch = this.executions.last(old.nodeId()).orElseThrow().epoch();
		await().atMost(LEASE.multipliedBy(4).plus(INTERVAL))
			.until(() -> this.executions.executions().stream().anyMatch((e) -> e.epoch() > epoch));
		return this.executions.executions().stream().filter((e) -> e.epoch() > epoch).findFirst().orElseThrow();
	}

	private List<RevocationReason> revocations(MembershipNode node) {
		return this.cluster.events(node.nodeId())
			.stream()
			.filter(LeaderRevokedEvent.class::isInstance)
			.map((e) -> ((LeaderRevokedEvent) e).reason())
			.toList();
	}

}
