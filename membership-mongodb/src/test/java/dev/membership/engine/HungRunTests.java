package dev.membership.engine;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

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

import dev.membership.MembershipStatus;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.mongo.EpochFence;
import dev.membership.mongo.FencedWriteResult;
import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.LeadershipRecorder;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A run that hangs gives its group back: past its max run time the node hands the group
 * over (the drain waits for the run up to the drain timeout), another node leads within
 * max run time + drain timeout + two intervals, and the hung node does not take the group
 * again while the run goes on (renew 150 ms, lease 600 ms); when the hung run comes back
 * at last, its fenced write is refused, since the new leader wrote under a newer epoch.
 */
@ExtendWith({ FastPolling.class, OutputCaptureExtension.class })
class HungRunTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private static final Duration MAX_RUN = Duration.ofMillis(400);

	private static final Duration DRAIN = Duration.ofMillis(300);

	private EmbeddedMongo mongo;

	private TestCluster cluster;

	private final CountDownLatch release = new CountDownLatch(1);

	@BeforeEach
	void setUp() {
		this.mongo = new EmbeddedMongo();
		this.cluster = this.mongo.cluster().withNotices().customize((s) -> s.drainTimeout(DRAIN));
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.cluster.close();
		this.mongo.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void aRunPastItsMaxRunTimeHandsTheGroupOverAndItsNodeStaysOutWhileTheRunGoesOn(CapturedOutput output)
			throws Exception {
		MembershipNode first = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> first.isLeader(GROUP));
		MembershipNode second = this.cluster.start("n2");
		await().atMost(Duration.ofSeconds(5)).until(() -> second.liveMembers().size() == 2);
		long epoch = first.currentTerm(GROUP).orElseThrow().epoch();

		MongoClient client = this.mongo.newClient();
		MongoCollection<Document> reports = client.getDatabase("app").getCollection("reports");
		java.util.concurrent.atomic.AtomicLong began = new java.util.concurrent.atomic.AtomicLong();
		CompletableFuture<FencedWriteResult> hung = CompletableFuture.supplyAsync(() -> {
			// the run begins here, not when this thread hands the task to the pool
			began.set(System.nanoTime());
			try (LeadershipTerm.Execution run = first.tryBegin(GROUP, "reports#nightly", false, MAX_RUN)) {
				assertThat(run).isNotNull();
				// blocks like a job stuck on a socket
				this.release.await(30, TimeUnit.SECONDS);
				// ... and comes back long after another node took over: its write is
				// fenced out
				return EpochFence.of(GROUP, epoch)
					.updateOne(reports, Filters.eq("_id", "nightly"), Updates.set("by", "n1"),
							new UpdateOptions().upsert(true));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		});

		Duration bound = MAX_RUN.plus(DRAIN).plus(INTERVAL.multipliedBy(2));
		await().atMost(bound.multipliedBy(3)).until(() -> second.isLeader(GROUP));
		LeadershipRecorder.Interval next = await().atMost(Duration.ofSeconds(2))
			.until(() -> this.cluster.recorder()
				.intervals()
				.stream()
				.filter((i) -> i.nodeId().equals("n2"))
				.findFirst(), java.util.Optional::isPresent)
			.get();
		Duration took = Duration.ofNanos(next.startNanos() - began.get());
		System.out.printf(
				"hung run: another node led %d ms after the run began (max run %d ms, drain %d ms, "
						+ "interval %d ms: bound %d ms)%n",
				took.toMillis(), MAX_RUN.toMillis(), DRAIN.toMillis(), INTERVAL.toMillis(), bound.toMillis());
		assertThat(took).isGreaterThanOrEqualTo(MAX_RUN.plus(DRAIN)).isLessThanOrEqualTo(bound);
		assertThat(next.epoch()).isGreaterThan(epoch);
		// the new leader writes under its own epoch
		assertThat(EpochFence.of(GROUP, next.epoch())
			.updateOne(reports, Filters.eq("_id", "nightly"), Updates.set("by", "n2"), new UpdateOptions().upsert(true))
			.applied()).isTrue();
		assertThat(this.cluster.events("n1")).filteredOn(LeaderRevokedEvent.class::isInstance)
			.extracting((e) -> ((LeaderRevokedEvent) e).reason())
			.containsExactly(RevocationReason.HUNG);
		assertThat(first.status().hungRuns()).singleElement().satisfies((run) -> {
			assertThat(run.job()).isEqualTo("reports#nightly");
			assertThat(run.group()).isEqualTo(GROUP);
			assertThat(run.epoch()).isEqualTo(epoch);
			assertThat(run.runningFor()).isGreaterThanOrEqualTo(MAX_RUN);
		});
		assertThat(output).contains("Run ", "of reports#nightly", "past its max run time of 400 ms", "where ");

		// the other node leaves: the hung one stays out of the race while its run goes on
		second.stop(LEASE);
		await().during(LEASE.multipliedBy(2)).atMost(LEASE.multipliedBy(3)).until(() -> !first.isLeader(GROUP));

		this.release.countDown();
		FencedWriteResult late = hung.get(5, TimeUnit.SECONDS);
		assertThat(late.isFencedOut()).as("the hung run's late write").isTrue();
		assertThat(late.supersededBy()).hasValue(next.epoch());
		assertThat(reports.find(Filters.eq("_id", "nightly")).first().getString("by")).isEqualTo("n2");
		client.close();
		assertThat(first.status().hungRuns()).isEmpty();
		await().atMost(LEASE.multipliedBy(3)).until(() -> first.isLeader(GROUP));
	}

	@Test
	void aRunWithinItsMaxRunTimeChangesNothing() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader(GROUP));
		long epoch = node.currentTerm(GROUP).orElseThrow().epoch();
		try (LeadershipTerm.Execution run = node.tryBegin(GROUP, "reports#quick", false, LEASE.multipliedBy(10))) {
			assertThat(run).isNotNull();
			await().during(INTERVAL.multipliedBy(3))
				.atMost(INTERVAL.multipliedBy(4))
				.until(() -> node.isLeader(GROUP) && node.status().hungRuns().isEmpty());
		}
		assertThat(node.currentTerm(GROUP).orElseThrow().epoch()).isEqualTo(epoch);
		MembershipStatus status = node.status();
		assertThat(status.hungRuns()).isEmpty();
	}

}
