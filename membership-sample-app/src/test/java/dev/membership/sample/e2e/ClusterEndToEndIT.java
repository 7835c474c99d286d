package dev.membership.sample.e2e;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.sample.e2e.SampleProcesses.Proc;

import static dev.membership.sample.e2e.SampleProcesses.LOGS;
import static dev.membership.sample.e2e.SampleProcesses.cluster;
import static dev.membership.sample.e2e.SampleProcesses.freePort;
import static dev.membership.sample.e2e.SampleProcesses.get;
import static dev.membership.sample.e2e.SampleProcesses.post;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The packaged sample app as real processes: a standalone embedded database and three
 * nodes on free loopback ports, with short timings, checked over HTTP only. Every process
 * is stopped at the end, even when a check fails.
 */
class ClusterEndToEndIT {

	private static final Duration LEASE = SampleProcesses.LEASE;

	private static final Duration INTERVAL = SampleProcesses.INTERVAL;

	private static final JsonMapper json = SampleProcesses.json;

	private static SampleProcesses processes;

	private static int databasePort;

	private static Path databaseDirectory;

	@BeforeAll
	static void prepare() throws IOException {
		processes = new SampleProcesses();
		databasePort = freePort();
		databaseDirectory = Files.createTempDirectory(LOGS, "db");
	}

	@AfterAll
	static void stopEverything() throws InterruptedException {
		processes.close();
	}

	@Test
	void aClusterOfRealProcessesElectsFailsOverAndKeepsItsGuarantees() throws Exception {
		Proc database = startDatabase();
		List<Proc> nodes = new ArrayList<>(List.of(startNode("n1"), startNode("n2"), startNode("n3")));
		awaitReady(nodes);
		Proc leader = awaitOneLeaderSeenByAll(nodes);

		checkCacheInvalidationReachesTheOthersExactlyOnce(nodes);
		checkPrometheus(nodes);

		// graceful stop of the leader
		long epoch = epochOf(leader);
		long stopped = System.nanoTime();
		leader.process().destroy(); // SIGTERM
		Proc successor = awaitLeaderAfter(nodes, leader, epoch);
		Duration graceful = Duration.ofNanos(System.nanoTime() - stopped);
		System.out.printf("e2e graceful stop (SIGTERM) of the leader: new leader %s after %d ms%n", successor.name(),
				graceful.toMillis());
		assertThat(graceful).isLessThan(Duration.ofSeconds(1));
		assertThat(leader.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
		nodes.remove(leader);
		nodes.add(startNode("n4"));
		awaitReady(nodes);
		leader = awaitOneLeaderSeenByAll(nodes);

		// crash of the leader
		epoch = epochOf(leader);
		long killed = System.nanoTime();
		leader.process().destroyForcibly(); // SIGKILL
		successor = awaitLeaderAfter(nodes, leader, epoch);
		Duration crash = Duration.ofNanos(System.nanoTime() - killed);
		System.out.printf("e2e kill -9 of the leader: new leader %s after %d ms (lease %d ms)%n", successor.name(),
				crash.toMillis(), LEASE.toMillis());
		assertThat(crash).isLessThan(LEASE.plus(INTERVAL).plusMillis(500));
		nodes.remove(leader);
		nodes.add(startNode("n5"));
		awaitReady(nodes);
		leader = awaitOneLeaderSeenByAll(nodes);

		// database outage: the leader steps down before its lease could end, and leads
		// again once it is back
		epoch = epochOf(leader);
		Instant leaseEnd = stopDatabaseAndWatchTheLeader(database, leader);
		Instant steppedDown = Instant.now();
		System.out.printf("e2e database stopped: leader %s stepped down %d ms before its lease would have ended%n",
				leader.name(), Duration.between(steppedDown, leaseEnd).toMillis());
		// the stand-in's clock is this machine's clock, so this comparison is valid here
		assertThat(steppedDown).isBefore(leaseEnd);
		database = startDatabase();
		long highest = epoch;
		await("a leader after the database came back").atMost(Duration.ofSeconds(30))
			.until(() -> currentLeader(nodes).filter((p) -> epochOf(p) > highest).isPresent());

		checkHousekeepingRuns(nodes);
		checkTenantRuns(nodes);
	}

	/**
	 * Rolling-deploy style: the leader gets SIGTERM in the middle of a housekeeping run
	 * that works 1.5 s, several times in a row. The run must finish before any other node
	 * starts one, and the next leader should start right after it.
	 */
	@Test
	void aLeaderStoppedMidRunHandsOverOnlyAfterTheRunEnds() throws Exception {
		int database = freePort();
		startDatabase(database, Files.createTempDirectory(LOGS, "drain-db"));
		String[] work = { "--sample.housekeeping.work-duration=1500ms", "--sample.housekeeping.interval=20ms" };
		List<Proc> nodes = new ArrayList<>(List.of(startNode("d1", database, work), startNode("d2", database, work),
				startNode("d3", database, work)));
		awaitReady(nodes);
		Proc leader = awaitOneLeaderSeenByAll(nodes);
		List<Long> gaps = new ArrayList<>();
		List<Long> handOvers = new ArrayList<>();
		int stops = 3;
		for (int stop = 0; stop < stops; stop++) {
			Proc stopping = leader;
			// the run seen in progress, from the same read: a second read could fall
			// between two runs
			JsonNode running = await("a run in progress on " + stopping.name()).atMost(Duration.ofSeconds(10))
				.until(() -> runs(stopping).stream()
					.filter((r) -> r.get("nodeId").asString().equals(stopping.name()) && !r.hasNonNull("endedAt"))
					.findFirst(), Optional::isPresent)
				.orElseThrow();
			stopping.process().destroy(); // SIGTERM, mid-run
			nodes.remove(stopping);
			assertThat(stopping.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
			processes.exited(stopping);
			JsonNode next = awaitFirstRunAfter(nodes.get(0), running.get("epoch").asLong());
			JsonNode drained = runs(nodes.get(0)).stream()
				.filter((r) -> r.get("id").asString().equals(running.get("id").asString()))
				.findFirst()
				.orElseThrow();
			assertThat(drained.hasNonNull("endedAt")).as("the run SIGTERM interrupted %s ended", drained).isTrue();
			assertThat(drained.get("accepted").asBoolean()).as("its fenced write was accepted").isTrue();
			Instant drainedEnd = Instant.parse(drained.get("endedAt").asString());
			long gap = Duration.between(drainedEnd, Instant.parse(next.get("startedAt").asString())).toMillis();
			gaps.add(gap);
			// the new leader's acquisition as the database stamped it ($currentDate),
			// beside the run's end
			long handOver = Duration
				.between(drainedEnd, StoredData.leaseAcquiredAt(database, next.get("epoch").asLong()))
				.toMillis();
			handOvers.add(handOver);
			assertThat(handOver).as("the next leader acquired the lease after the drained run ended").isNotNegative();
			System.out.printf(
					"e2e SIGTERM mid-run #%d: %s's run ended; %s acquired the lease %d ms later and started "
							+ "its first run %d ms later%n",
					stop + 1, stopping.name(), next.get("nodeId").asString(), handOver, gap);
			nodes.add(startNode("d" + (4 + stop), database, work));
			awaitReady(nodes);
			leader = awaitOneLeaderSeenByAll(nodes);
		}
		List<JsonNode> all = runs(nodes.get(0));
		for (JsonNode a : all) {
			for (JsonNode b : all) {
				if (a != b && !a.get("nodeId").asString().equals(b.get("nodeId").asString())) {
					assertThat(overlap(a, b)).as("runs %s and %s overlap", a, b).isFalse();
				}
			}
		}
		System.out.printf(
				"e2e SIGTERM mid-run: %d stops, %d runs checked, no overlap; from the drained run's end to "
						+ "the next leader's acquisition: median %d ms, all %s; to its first run: median %d ms, all %s "
						+ "(housekeeping every 20 ms)%n",
				stops, all.size(), median(handOvers), handOvers, median(gaps), gaps);
		assertThat(gaps).allSatisfy((gap) -> assertThat(gap).isNotNegative());
		// told at once, not found at the next read: no hand-over as slow as a renewal
		// interval, tens of ms typically
		assertThat(handOvers).as("hand-overs, ms").allSatisfy((ms) -> assertThat(ms).isLessThan(INTERVAL.toMillis()));
		assertThat(median(handOvers)).as("median hand-over, ms").isLessThan(100);
	}

	// ------------------------------------------------------------------ checks

	private static long median(List<Long> values) {
		List<Long> sorted = new ArrayList<>(values);
		sorted.sort(null);
		return sorted.get(sorted.size() / 2);
	}

	private static List<JsonNode> runs(Proc node) throws Exception {
		List<JsonNode> runs = new ArrayList<>();
		json.readTree(get(node, "/housekeeping/runs").body()).forEach(runs::add);
		runs.sort(Comparator.comparing((JsonNode r) -> Instant.parse(r.get("startedAt").asString())));
		return runs;
	}

	private static JsonNode awaitFirstRunAfter(Proc node, long epoch) {
		await("a run of an epoch after " + epoch).atMost(Duration.ofSeconds(15))
			.until(() -> runs(node).stream().anyMatch((r) -> r.get("epoch").asLong() > epoch));
		try {
			return runs(node).stream().filter((r) -> r.get("epoch").asLong() > epoch).findFirst().orElseThrow();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Two runs overlap if each started before the other ended; a run still going has not
	 * ended.
	 */
	private static boolean overlap(JsonNode a, JsonNode b) {
		Instant aStart = Instant.parse(a.get("startedAt").asString());
		Instant bStart = Instant.parse(b.get("startedAt").asString());
		Instant aEnd = a.hasNonNull("endedAt") ? Instant.parse(a.get("endedAt").asString()) : Instant.MAX;
		Instant bEnd = b.hasNonNull("endedAt") ? Instant.parse(b.get("endedAt").asString()) : Instant.MAX;
		return aStart.isBefore(bEnd) && bStart.isBefore(aEnd);
	}

	private static void checkCacheInvalidationReachesTheOthersExactlyOnce(List<Proc> nodes) throws Exception {
		Proc sender = nodes.get(0);
		HttpResponse<String> sent = post(sender, "/cache/invalidate?key=e2e-key");
		assertThat(sent.statusCode()).as(sent.body()).isEqualTo(200);
		for (Proc other : nodes.subList(1, nodes.size())) {
			await().atMost(Duration.ofSeconds(5)).until(() -> invalidations(other, "e2e-key") == 1);
		}
		// and not again
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(2))
			.until(() -> nodes.subList(1, nodes.size()).stream().allMatch((p) -> invalidations(p, "e2e-key") == 1));
		assertThat(invalidations(sender, "e2e-key")).isZero();
	}

	private static void checkPrometheus(List<Proc> nodes) throws Exception {
		for (Proc node : nodes) {
			String scrape = get(node, "/actuator/prometheus").body();
			assertThat(scrape).contains("membership_leader{", "membership_leader_epoch{", "membership_members_live",
					"membership_leadership_acquisitions_total{", "membership_leadership_renewals_total{",
					"membership_heartbeat_last_seconds{", "membership_broadcast_sent_total{",
					"membership_broadcast_received_total{", "membership_store_operations_seconds_count{",
					"membership_leader_only_executions_total{");
		}
	}

	private static void checkHousekeepingRuns(List<Proc> nodes) throws Exception {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> StoredData.runs(databasePort, "housekeeping_runs").size() > 10);
		// every run since the first, straight from the database: the endpoint serves the
		// newest 500 only
		List<JsonNode> runs = StoredData.runs(databasePort, "housekeeping_runs")
			.stream()
			.filter((r) -> r.hasNonNull("endedAt"))
			.toList();
		Map<Long, String> leaderOfEpoch = new HashMap<>();
		Set<String> leaders = new HashSet<>();
		JsonNode previous = null;
		for (JsonNode run : runs) {
			long epoch = run.get("epoch").asLong();
			String node = run.get("nodeId").asString();
			String first = leaderOfEpoch.putIfAbsent(epoch, node);
			assertThat(first == null || first.equals(node)).as("epoch %d run by %s and %s", epoch, first, node)
				.isTrue();
			leaders.add(node);
			if (previous != null) {
				assertThat(epoch).as("epochs never go back").isGreaterThanOrEqualTo(previous.get("epoch").asLong());
				boolean overlaps = Instant.parse(run.get("startedAt").asString())
					.isBefore(Instant.parse(previous.get("endedAt").asString()));
				// only a run that outlived its leadership (the outage) may overlap the
				// next, and the fence refused it
				assertThat(
						!overlaps || (previous.path("accepted").isBoolean() && !previous.get("accepted").asBoolean()))
					.as("run %s overlaps %s, whose fenced write was not refused", run, previous)
					.isTrue();
			}
			previous = run;
		}
		System.out.printf("e2e housekeeping: %d runs checked, %d epochs, run by %s%n", runs.size(),
				leaderOfEpoch.size(), leaders);
		// a run rejected by the fence (it outlived its leadership through the outage) was
		// superseded by a newer epoch
		long newest = runs.stream().mapToLong((r) -> r.get("epoch").asLong()).max().orElseThrow();
		for (JsonNode run : runs) {
			if (run.path("accepted").isBoolean() && !run.get("accepted").asBoolean()) {
				assertThat(run.get("epoch").asLong()).as("rejected run %s", run).isLessThan(newest);
			}
		}
		assertThat(leaderOfEpoch).hasSizeGreaterThan(1);
	}

	/**
	 * The partitioned roll-up through everything the cluster went through (a graceful
	 * stop, a kill -9, joins, a database outage): per partition, runs never overlapped
	 * unless the earlier one's fenced write was refused (a run that outlived its
	 * ownership, which the fence is for), epochs never went back, and the partitions were
	 * spread.
	 */
	private static void checkTenantRuns(List<Proc> nodes) throws Exception {
		List<JsonNode> all = new ArrayList<>(StoredData.runs(databasePort, "tenant_runs"));
		all.removeIf((r) -> !r.hasNonNull("endedAt"));
		all.sort(Comparator.comparing((JsonNode r) -> Instant.parse(r.get("startedAt").asString())));
		Map<Integer, JsonNode> previousOf = new HashMap<>();
		Map<String, String> ownerOfEpoch = new HashMap<>();
		Set<String> owners = new HashSet<>();
		for (JsonNode run : all) {
			int partition = run.get("partition").asInt();
			long epoch = run.get("epoch").asLong();
			String node = run.get("nodeId").asString();
			String first = ownerOfEpoch.putIfAbsent(partition + "/" + epoch, node);
			assertThat(first == null || first.equals(node))
				.as("partition %d epoch %d run by %s and %s", partition, epoch, first, node)
				.isTrue();
			owners.add(node);
			JsonNode previous = previousOf.put(partition, run);
			if (previous != null) {
				assertThat(epoch).as("partition %d: epochs never go back", partition)
					.isGreaterThanOrEqualTo(previous.get("epoch").asLong());
				boolean overlaps = Instant.parse(run.get("startedAt").asString())
					.isBefore(Instant.parse(previous.get("endedAt").asString()));
				if (overlaps) {
					// only the fence's refusal excuses it: a run whose fenced write was
					// never made proves nothing
					assertThat(previous.path("accepted").isBoolean() && !previous.get("accepted").asBoolean())
						.as("partition %d: run %s overlapped %s, whose fenced write was not refused", partition, run,
								previous)
						.isTrue();
				}
			}
		}
		System.out.printf("e2e tenant roll-up: %d runs of %d partitions checked, run by %s%n", all.size(),
				previousOf.size(), owners);
		assertThat(previousOf).hasSize(8);
		assertThat(owners).hasSizeGreaterThan(1);
	}

	/**
	 * Stops the database once the leader has just renewed; returns the end of its last
	 * lease, as the leader wrote it.
	 */
	private static Instant stopDatabaseAndWatchTheLeader(Proc database, Proc leader) throws Exception {
		Instant seen = leaseExpiry(leader).orElseThrow();
		await().atMost(Duration.ofSeconds(2))
			.until(() -> leaseExpiry(leader).filter((e) -> e.isAfter(seen)).isPresent());
		database.process().destroy();
		Instant latest = seen;
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (System.nanoTime() < deadline) {
			Optional<Instant> expiry = leaseExpiry(leader);
			if (expiry.isEmpty()) {
				assertThat(database.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
				processes.exited(database);
				return latest;
			}
			latest = expiry.get().isAfter(latest) ? expiry.get() : latest;
		}
		throw new AssertionError("the leader did not step down after the database stopped");
	}

	// ------------------------------------------------------------------ cluster views

	private static Proc awaitOneLeaderSeenByAll(List<Proc> nodes) {
		await("one leader seen by all").atMost(Duration.ofSeconds(30)).until(() -> {
			Set<String> leaders = new HashSet<>();
			Set<Set<String>> memberSets = new HashSet<>();
			for (Proc node : nodes) {
				JsonNode cluster = cluster(node);
				if (cluster == null || !cluster.path("leader").isObject()) {
					return false;
				}
				leaders.add(cluster.get("leader").get("nodeId").asString());
				Set<String> live = new HashSet<>();
				cluster.get("members").forEach((m) -> {
					if (m.get("live").asBoolean()) {
						live.add(m.get("nodeId").asString());
					}
				});
				memberSets.add(live);
			}
			Set<String> names = new HashSet<>();
			nodes.forEach((n) -> names.add(n.name()));
			return leaders.size() == 1 && memberSets.equals(Set.of(names))
					&& nodes.stream().filter(ClusterEndToEndIT::leadsItself).count() == 1;
		});
		return currentLeader(nodes).orElseThrow();
	}

	private static Proc awaitLeaderAfter(List<Proc> nodes, Proc old, long epoch) {
		List<Proc> others = nodes.stream().filter((n) -> n != old).toList();
		await("a new leader after " + old.name()).atMost(Duration.ofSeconds(10))
			.until(() -> currentLeader(others).filter((p) -> epochOf(p) > epoch).isPresent());
		return currentLeader(others).orElseThrow();
	}

	private static Optional<Proc> currentLeader(List<Proc> nodes) {
		return nodes.stream().filter(ClusterEndToEndIT::leadsItself).findFirst();
	}

	private static boolean leadsItself(Proc node) {
		return leadsItself(cluster(node));
	}

	private static boolean leadsItself(JsonNode cluster) {
		return cluster != null && !cluster.path("leader").isMissingNode() && !cluster.path("leader").isNull()
				&& cluster.get("leader").get("nodeId").asString().equals(cluster.get("self").get("nodeId").asString());
	}

	private static long epochOf(Proc node) {
		JsonNode cluster = cluster(node);
		return (cluster != null && cluster.path("leader").isObject()) ? cluster.get("leader").get("epoch").asLong()
				: -1;
	}

	/** The lease end this node wrote, while it leads. */
	private static Optional<Instant> leaseExpiry(Proc node) {
		JsonNode cluster = cluster(node); // one look: the node may step down between two
		return leadsItself(cluster) ? Optional.of(Instant.parse(cluster.get("leader").get("leaseExpiresAt").asString()))
				: Optional.empty();
	}

	private static int invalidations(Proc node, String key) {
		try {
			int count = 0;
			for (JsonNode event : json.readTree(get(node, "/cache/events").body())) {
				if (key.equals(event.get("key").asString())) {
					count++;
				}
			}
			return count;
		}
		catch (Exception ex) {
			return -1;
		}
	}

	// ------------------------------------------------------------------ processes

	private static Proc startDatabase() throws IOException {
		return processes.startDatabase(databasePort, databaseDirectory);
	}

	private static Proc startDatabase(int port, Path directory) throws IOException {
		return processes.startDatabase(port, directory);
	}

	private static Proc startNode(String name) throws IOException {
		return processes.startNode(name, databasePort);
	}

	private static Proc startNode(String name, int database, String... extra) throws IOException {
		return processes.startNode(name, database, extra);
	}

	private static void awaitReady(List<Proc> nodes) {
		processes.awaitReady(nodes);
	}

}
