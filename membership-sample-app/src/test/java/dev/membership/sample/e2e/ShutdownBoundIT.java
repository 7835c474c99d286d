package dev.membership.sample.e2e;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.membership.sample.e2e.SampleProcesses.Proc;

import static dev.membership.sample.e2e.SampleProcesses.LEASE;
import static dev.membership.sample.e2e.SampleProcesses.LOGS;
import static dev.membership.sample.e2e.SampleProcesses.cluster;
import static dev.membership.sample.e2e.SampleProcesses.freePort;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The shutdown bound of the guides, on a real process: SIGTERM to the leader in the
 * middle of a housekeeping run that works 8 s, with a drain timeout of 2 s. Membership's
 * phase ends within the drain timeout plus the leave's bound (the lease here, shorter
 * than what Spring's 30 s phase leaves) plus a second; then Spring's scheduler waits for
 * the run that outlived the drain (its own shutdown phase), and the process exits once
 * that ended and the context closed. No other node starts a run before the drain timed
 * out, and the run that outlived the drain is fenced out. On both backends: the MongoDB
 * stand-in, and PostgreSQL (the Failsafe execution {@code postgres}).
 */
class ShutdownBoundIT {

	private static final Duration DRAIN = Duration.ofSeconds(2);

	/**
	 * The leave after the drain: min(lease, phase - drain - 1.5 s) = the lease with these
	 * settings.
	 */
	private static final Duration LEAVE = LEASE;

	/** How long the run works. */
	private static final Duration RUN = Duration.ofSeconds(8);

	/**
	 * What the web server's graceful shutdown (no request in flight) and the context's
	 * close take here, at most.
	 */
	private static final Duration CLOSE = Duration.ofSeconds(2);

	private static SampleProcesses processes;

	/** The database's port. */
	private static int database;

	@BeforeAll
	static void prepare() throws Exception {
		processes = new SampleProcesses();
	}

	@AfterAll
	static void stopEverything() throws InterruptedException {
		processes.close();
	}

	@Test
	void aLeaderStoppedInARunLongerThanTheDrainExitsWithinTheBoundAndNoOtherNodeRunsBeforeTheDrainEnded()
			throws Exception {
		database = freePort();
		processes.startDatabase(database, Files.createTempDirectory(LOGS, "shutdown-db"));
		Proc stopping = processes.startNode("s1", database,
				"--sample.housekeeping.work-duration=" + RUN.toMillis() + "ms", "--sample.housekeeping.interval=20ms",
				"--membership.shutdown.drain-timeout=" + DRAIN.toMillis() + "ms");
		processes.awaitReady(List.of(stopping));
		await("s1 leads").atMost(Duration.ofSeconds(30)).until(() -> "s1".equals(leader(stopping)));
		Proc next = processes.startNode("s2", database, "--sample.housekeeping.work-duration=100ms",
				"--sample.housekeeping.interval=20ms");
		processes.awaitReady(List.of(next));
		JsonNode running = await("a run of s1 in progress").atMost(Duration.ofSeconds(30))
			.until(() -> runs().stream()
				// one with more than the drain (and a second of slack) to go, so that the
				// drain, not the run's end,
				// decides when s2 may begin
				.filter((r) -> "s1".equals(r.get("nodeId").asString()) && r.get("endedAt").isNull()
						&& Instant.parse(r.get("startedAt").asString())
							.plus(RUN)
							.isAfter(Instant.now().plus(DRAIN).plusSeconds(1)))
				.findFirst()
				.orElse(null), (r) -> r != null);
		Instant sigterm = Instant.now();
		long sent = System.nanoTime();
		stopping.process().destroy(); // SIGTERM, with up to 8 s of the run to go
		assertThat(stopping.process().waitFor(60, TimeUnit.SECONDS)).as("s1 exited").isTrue();
		Duration exit = Duration.ofNanos(System.nanoTime() - sent);
		processes.exited(stopping);
		JsonNode first = await("s2's first run").atMost(Duration.ofSeconds(30))
			.until(() -> runs().stream()
				.filter((r) -> "s2".equals(r.get("nodeId").asString()))
				.findFirst() // runs() is oldest first
				.orElse(null), (r) -> r != null);
		Instant nextStart = Instant.parse(first.get("startedAt").asString());
		Duration afterSigterm = Duration.between(sigterm, nextStart);
		System.out.printf("e2e SIGTERM in a run longer than the drain (drain %d ms, leave at most %d ms): s1 exited "
				+ "%d ms after SIGTERM; s2's first run began %d ms after SIGTERM, under epoch %d (s1's run: epoch %d)%n",
				DRAIN.toMillis(), LEAVE.toMillis(), exit.toMillis(), afterSigterm.toMillis(),
				first.get("epoch").asLong(), running.get("epoch").asLong());
		// membership's phase (drain, leave, a second of slack), or the run's end if
		// later: the scheduler waits for it
		Duration runLeft = Duration.between(sigterm, Instant.parse(running.get("startedAt").asString()).plus(RUN));
		Duration membership = DRAIN.plus(LEAVE).plusSeconds(1);
		Duration bound = ((runLeft.compareTo(membership) > 0) ? runLeft : membership).plus(CLOSE);
		System.out.printf("e2e SIGTERM in a run longer than the drain: the run had %d ms left; bound %d ms%n",
				runLeft.toMillis(), bound.toMillis());
		assertThat(exit).as("SIGTERM to exit").isLessThanOrEqualTo(bound);
		// the drain starts once the signal is handled: nothing of s2 before it timed out
		// (both clocks are this machine's: the database stamps with its own)
		assertThat(afterSigterm).as("from SIGTERM to the next run").isGreaterThanOrEqualTo(DRAIN.minusMillis(20));
		assertThat(first.get("epoch").asLong()).isGreaterThan(running.get("epoch").asLong());
		JsonNode drained = runs().stream()
			.filter((r) -> r.get("id").asString().equals(running.get("id").asString()))
			.findFirst()
			.orElseThrow();
		if (!drained.get("endedAt").isNull() && Instant.parse(drained.get("endedAt").asString()).isAfter(nextStart)) {
			assertThat(drained.get("accepted").isBoolean() && drained.get("accepted").asBoolean())
				.as("the run that outlived the drain was fenced out: %s", drained)
				.isFalse();
		}
	}

	private static @Nullable String leader(Proc node) {
		JsonNode cluster = cluster(node);
		return (cluster != null && cluster.hasNonNull("leader")) ? cluster.get("leader").get("nodeId").asString()
				: null;
	}

	/** Every housekeeping run, oldest first, read straight from the database. */
	private static List<JsonNode> runs() {
		return StoredData.runs(database, "housekeeping_runs");
	}

}
