package dev.membership.sample.e2e;

import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.membership.sample.e2e.SampleProcesses.Proc;

import static dev.membership.sample.e2e.SampleProcesses.LOGS;
import static dev.membership.sample.e2e.SampleProcesses.freePort;
import static dev.membership.sample.e2e.SampleProcesses.get;
import static dev.membership.sample.e2e.SampleProcesses.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The tenant roll-up (group {@code tenants}, 8 partitions) on real processes through what
 * a deployment does without a fault: a node joins, a node is stopped gracefully in the
 * middle of its runs (SIGTERM), the cluster scales down to two. Each run works 200 ms (2
 * s on the node stopped mid-run) and the next starts 20 ms after. Per partition, no two
 * runs ever overlap, every run's fenced write is accepted, and its epoch rises at every
 * move: each move waited for the old owner's run to end.
 */
class PartitionHandOverIT {

	private static final int PARTITIONS = 8;

	private static final String[] WORK = { "--sample.tenants.work-duration=200ms", "--sample.tenants.interval=20ms",
			"--sample.tenants.partitions=" + PARTITIONS };

	/**
	 * The node stopped mid-run works longer: a hand-over that did not wait for its run
	 * would overlap the next.
	 */
	private static final String LONG_WORK = "--sample.tenants.work-duration=2s";

	private static SampleProcesses processes;

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
	void partitionRunsNeverOverlapAcrossAJoinAGracefulStopMidRunAndAScaleDown() throws Exception {
		database = freePort();
		processes.startDatabase(database, Files.createTempDirectory(LOGS, "partitions-db"));
		List<Proc> nodes = new ArrayList<>();
		nodes.add(processes.startNode("p1", database, with(WORK, LONG_WORK)));
		nodes.add(processes.startNode("p2", database, WORK));
		nodes.add(processes.startNode("p3", database, WORK));
		processes.awaitReady(nodes);
		awaitBalanced(nodes, "three nodes");
		// moves count from here (the start may place on one node first), once every
		// partition ran since
		Instant placed = Instant.now();
		awaitARunOfEveryPartitionSince(placed, "after the placement over three nodes");

		nodes.add(processes.startNode("p4", database, WORK));
		processes.awaitReady(nodes);
		awaitBalanced(nodes, "after p4 joined");

		Proc stopping = nodes.get(0);
		Run running = await("a run in progress on " + stopping.name()).atMost(Duration.ofSeconds(10))
			.until(() -> runs().stream()
				.filter((r) -> r.nodeId().equals(stopping.name()) && r.endedAt() == null)
				.findFirst()
				.orElse(null), (r) -> r != null);
		processes.stopGracefully(stopping); // SIGTERM mid-run
		nodes.remove(stopping);
		awaitBalanced(nodes, "after " + stopping.name() + " stopped mid-run");
		Run drained = runs().stream().filter((r) -> r.id().equals(running.id())).findFirst().orElseThrow();
		assertThat(drained.endedAt()).as("the run SIGTERM interrupted ended: %s", drained).isNotNull();
		assertThat(drained.accepted()).as("its fenced write was accepted: %s", drained).isTrue();

		Proc scaledDown = nodes.get(0);
		processes.stopGracefully(scaledDown);
		nodes.remove(scaledDown);
		awaitBalanced(nodes, "after " + scaledDown.name() + " stopped");
		// every partition runs again on the two left before the runs are read
		awaitARunOfEveryPartitionSince(Instant.now(), "after the scale-down");

		checkRuns(runs(), placed);
	}

	private static void awaitARunOfEveryPartitionSince(Instant since, String when) {
		await("a run of every partition " + when).atMost(Duration.ofSeconds(10))
			.until(() -> runs().stream()
				.filter((r) -> r.endedAt() != null && r.startedAt().isAfter(since))
				.map(Run::partition)
				.distinct()
				.count() == PARTITIONS);
	}

	private static String[] with(String[] args, String arg) {
		List<String> all = new ArrayList<>(List.of(args));
		all.add(arg);
		return all.toArray(String[]::new);
	}

	/**
	 * Per partition, in the order the database stamped their starts: each run ended
	 * before the next began, its fenced write was accepted, one epoch belongs to one
	 * node, and the epoch rises whenever the owner changes. Once placed over three nodes,
	 * the partitions move only as often as the join and the stops need.
	 */
	private static void checkRuns(List<Run> all, Instant placed) {
		Map<Integer, List<Run>> byPartition = new TreeMap<>();
		all.forEach((r) -> byPartition.computeIfAbsent(r.partition(), (p) -> new ArrayList<>()).add(r));
		assertThat(byPartition).as("runs of every partition").hasSize(PARTITIONS);
		int moves = 0;
		Set<String> owners = new HashSet<>();
		for (Map.Entry<Integer, List<Run>> entry : byPartition.entrySet()) {
			int partition = entry.getKey();
			Map<Long, String> ownerOfEpoch = new HashMap<>();
			Run previous = null;
			for (Run run : entry.getValue()) {
				String node = run.nodeId();
				long epoch = run.epoch();
				owners.add(node);
				String first = ownerOfEpoch.putIfAbsent(epoch, node);
				assertThat(first == null || first.equals(node))
					.as("partition %d epoch %d run by %s and %s", partition, epoch, first, node)
					.isTrue();
				if (previous != null) {
					assertThat(previous.endedAt()).as("partition %d: %s ended before %s", partition, previous, run)
						.isNotNull();
					assertThat(run.startedAt()).as("partition %d: %s starts after %s ended", partition, run, previous)
						.isAfterOrEqualTo(previous.endedAt());
					long before = previous.epoch();
					if (!previous.nodeId().equals(node)) {
						if (previous.startedAt().isAfter(placed)) {
							moves++;
						}
						assertThat(epoch).as("partition %d moved from %s to %s", partition, previous, run)
							.isGreaterThan(before);
					}
					else {
						assertThat(epoch).as("partition %d: epochs never go back", partition)
							.isGreaterThanOrEqualTo(before);
					}
				}
				if (run.endedAt() != null) {
					assertThat(run.accepted()).as("partition %d: %s's fenced write", partition, run).isTrue();
				}
				previous = run;
			}
		}
		System.out.printf(
				"e2e partitions: %d runs of %d partitions by %s, %d moves, no overlap, every write " + "accepted%n",
				all.size(), byPartition.size(), owners, moves);
		assertThat(owners).hasSize(4);
		// the fewest moves: 2 to the joiner (8 over 4), then each leaver's own (2 of
		// 2-2-2-2, then 2 or 3 of 3-3-2)
		assertThat(moves).as("partitions moved at the join and the two stops").isBetween(6, 7);
	}

	/**
	 * Waits until the nodes own every partition between them, once each, their counts
	 * within one of each other: what each node's own gauge (membership.partitions.owned)
	 * says; and still so five renewal intervals on, so that the coordinator (a new one,
	 * after a stop) placed the group again and every node read that placement. A node
	 * that leaves names its partitions' successors from the placement it read last: one
	 * that left on an older placement (the coordinator stopped just before) named
	 * successors the placement then moved again.
	 */
	private static void awaitBalanced(List<Proc> nodes, String when) {
		await("partitions balanced " + when).during(SampleProcesses.INTERVAL.multipliedBy(5))
			.atMost(Duration.ofSeconds(30))
			.until(() -> {
				List<Integer> counts = new ArrayList<>();
				for (Proc node : nodes) {
					counts.add(owned(node));
				}
				int sum = counts.stream().mapToInt(Integer::intValue).sum();
				int max = counts.stream().mapToInt(Integer::intValue).max().orElse(0);
				int min = counts.stream().mapToInt(Integer::intValue).min().orElse(0);
				return sum == PARTITIONS && max - min <= 1 && counts.stream().allMatch((c) -> c >= 0);
			});
	}

	private static int owned(Proc node) {
		try {
			JsonNode metric = json
				.readTree(get(node, "/actuator/metrics/membership.partitions.owned?tag=group:tenants").body());
			return (int) metric.get("measurements").get(0).get("value").asDouble();
		}
		catch (Exception ex) {
			return -1;
		}
	}

	/**
	 * Every run recorded so far, oldest start first, read from the database itself:
	 * {@code /tenants/runs} shows the newest 500, and this test makes more.
	 */
	private static List<Run> runs() {
		List<Run> runs = new ArrayList<>();
		for (JsonNode r : StoredData.runs(database, "tenant_runs")) {
			JsonNode ended = r.get("endedAt");
			JsonNode accepted = r.get("accepted");
			runs.add(new Run(r.get("id").asString(), r.get("nodeId").asString(), r.get("partition").asInt(),
					r.get("epoch").asLong(), Instant.parse(r.get("startedAt").asString()),
					(ended == null || ended.isNull()) ? null : Instant.parse(ended.asString()),
					(accepted == null || accepted.isNull()) ? null : accepted.asBoolean()));
		}
		return runs;
	}

	/**
	 * A run as the sample records it; {@code endedAt} and {@code accepted} are null while
	 * it runs.
	 */
	private record Run(String id, String nodeId, int partition, long epoch, Instant startedAt,
			@Nullable Instant endedAt, @Nullable Boolean accepted) {
	}

}
