package dev.membership.sample.housekeeping;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.context.annotation.Import;

import dev.membership.sample.TestDatabase;
import dev.membership.test.AutoConfigureMembershipTest;
import dev.membership.test.SimulatedCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's leader-only housekeeping with leadership under the test's control: the
 * application's data stays in its MongoDB (an embedded one, closed with the context),
 * membership runs on a simulated cluster. Runs happen only while this node leads, each
 * under its own epoch, and a revoke waits for the run in progress (caught early in its
 * half second of work).
 */
@SpringBootTest(properties = { "management.health.mongodb.enabled=false", "sample.housekeeping.interval=20ms",
		"sample.housekeeping.work-duration=500ms", "sample.items.interval=1h" })
@AutoConfigureMembershipTest
@DirtiesContext
@Import(TestDatabase.InContext.class)
class HousekeepingLeadershipTests {

	@Autowired
	SimulatedCluster cluster;

	@Autowired
	Housekeeping housekeeping;

	@Autowired
	MeterRegistry meters;

	@Test
	void runsOnlyWhileLeadingEachUnderItsEpoch() {
		await().atMost(Duration.ofSeconds(10)).until(() -> finished(1) > 0);
		// a run in flight, with most of its half second of work ahead of it
		HousekeepingRun inFlight = await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(this::runningSinceMoments, Objects::nonNull);

		// the embedded database stamps with this JVM's clock
		Instant revoking = Instant.now();
		this.cluster.revoke("default");
		// the drain: the run in progress ended before the revoke returned, after it
		// began, and none starts while following
		List<HousekeepingRun> whileLeading = this.housekeeping.runs();
		assertThat(whileLeading).allSatisfy((run) -> assertThat(run.endedAt()).isNotNull());
		assertThat(whileLeading).filteredOn((run) -> run.id().equals(inFlight.id()))
			.singleElement()
			.satisfies((run) -> assertThat(run.endedAt()).isAfterOrEqualTo(revoking.truncatedTo(ChronoUnit.MILLIS)));
		double skipped = skipped();
		await().atMost(Duration.ofSeconds(10)).until(() -> skipped() >= skipped + 3);
		assertThat(this.housekeeping.runs()).hasSameSizeAs(whileLeading);

		long epoch = this.cluster.elect("default").epoch();
		await().atMost(Duration.ofSeconds(10)).until(() -> finished(epoch) > 0);
		assertThat(this.housekeeping.runs()).allSatisfy((run) -> {
			assertThat(run.epoch()).isIn(1L, epoch);
			assertThat(run.nodeId()).isEqualTo(this.cluster.node().nodeId());
		});
	}

	/** The run in flight that started less than 200 ms ago (of its 500 ms), or null. */
	private HousekeepingRun runningSinceMoments() {
		Instant recent = Instant.now().minusMillis(200);
		return this.housekeeping.runs()
			.stream()
			.filter((run) -> run.endedAt() == null && run.startedAt() != null && run.startedAt().isAfter(recent))
			.findFirst()
			.orElse(null);
	}

	private long finished(long epoch) {
		return this.housekeeping.runs()
			.stream()
			.filter((run) -> run.epoch() == epoch && run.endedAt() != null && Boolean.TRUE.equals(run.accepted()))
			.count();
	}

	private double skipped() {
		return this.meters
			.counter("membership.leader.only.executions", "group", "default", "method", "Housekeeping.purgeExpired",
					"outcome", "skipped")
			.count();
	}

}
