package dev.membership.nemesis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import dev.membership.nemesis.History.Event;
import dev.membership.nemesis.History.Kind;

/**
 * One run: a real PostgreSQL, the nodes in their namespaces, and a schedule of faults
 * drawn from a seed; every fault held past the lease, then healed, the nodes ready again,
 * and a quiet moment before the next. Every run injects every kind once first, in an
 * order drawn from the seed; a long one then draws kinds until its time is up. At the end
 * the nodes stop gracefully and the checker reads everything.
 */
final class Nemesis {

	/** What a run found: its figures and its violations. */
	record Report(long seed, Set<Fault> kinds, Map<Fault, Integer> faults, int units, long beliefs, long runs,
			long fencedWrites, Map<String, Duration> longestWithout, Map<String, Duration> longestDuring,
			Duration bound, java.util.List<String> violations) {

		String table() {
			StringBuilder table = new StringBuilder();
			table.append("seed ").append(this.seed).append('\n');
			table.append("| fault | injected | longest without a believer, fault to next fault | after its heal |\n");
			table.append("|---|---|---|---|\n");
			this.faults.forEach((fault, n) -> table.append("| ")
				.append(fault)
				.append(" | ")
				.append(n)
				.append(" | ")
				.append(this.longestDuring.getOrDefault(fault.name(), Duration.ZERO).toMillis())
				.append(" ms | ")
				.append(this.longestWithout.getOrDefault(fault.name(), Duration.ZERO).toMillis())
				.append(" ms |\n"));
			table.append("units ").append(this.units).append(", beliefs ").append(this.beliefs);
			table.append(", guarded runs ").append(this.runs).append(", fenced writes ").append(this.fencedWrites);
			table.append(", bound ").append(this.bound.toMillis()).append(" ms, violations ");
			table.append(this.violations.size()).append('\n');
			this.violations.forEach((v) -> table.append("VIOLATION ").append(v).append('\n'));
			return table.toString();
		}

	}

	/** The documented bound on a unit without a leader once the faults healed. */
	static final Duration BOUND = Nodes.LEASE.plus(Nodes.INTERVAL.multipliedBy(3));

	private static final int NODES = 3;

	private final long seed;

	private final Random random;

	private final Path logs;

	private final History history = new History();

	private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class);

	/** The drift the docs allow a node's clocks against the database's: 200 ppm. */
	static final double DRIFT = 200e-6;

	/** The rates of a drifting node's clocks: fast or slow, at the drift allowed. */
	private double[] driftRates = { 1 - DRIFT, 1 + DRIFT };

	/** The kinds of fault drawn, of those the database takes. */
	private Set<Fault> kinds = java.util.EnumSet.allOf(Fault.class);

	private List<String> nodeArgs = List.of();

	/** The unit whose leader each fault hits, or null: a node drawn at random. */
	private String targetLeaderOf;

	Nemesis(long seed, Path logs) {
		this.seed = seed;
		this.random = new Random(seed);
		this.logs = logs;
	}

	/** Draws only {@code kinds}: for a run that shows the checker one broken variant. */
	Nemesis only(Fault... kinds) {
		this.kinds = java.util.EnumSet.copyOf(java.util.List.of(kinds));
		return this;
	}

	/** Every node's process also gets {@code args}: a broken variant's switch. */
	Nemesis nodeArgs(String... args) {
		this.nodeArgs = List.of(args);
		return this;
	}

	/**
	 * Each fault hits the node that leads {@code unit} then: for a broken variant that
	 * shows only where work is under way.
	 */
	Nemesis targetLeaderOf(String unit) {
		this.targetLeaderOf = unit;
		return this;
	}

	/** Drifting nodes' clocks run at {@code rates}: past the bound, a broken variant. */
	Nemesis driftRates(double... rates) {
		this.driftRates = rates;
		return this;
	}

	/** Runs the short schedule ({@code minutes} 0) or a long one, and checks it. */
	Report run(Path jar, int minutes, boolean mongo) throws Exception {
		Files.createDirectories(this.logs);
		int subnet = 1 + (int) (ProcessHandle.current().pid() % 250);
		try (SampleDatabase database = mongo ? new MongoStandIn(jar, this.logs.resolve("db"), this.logs, Ports.free())
				: new PostgresDatabase(jar, this.logs.resolve("db"), this.logs, Ports.free());
				Network network = new Network(subnet, NODES);
				Forwarder forwarder = new Forwarder(network.hostAddress, database.port);
				Nodes nodes = new Nodes(jar, this.logs, network,
						args(database.nodeArgs(network.hostAddress, forwarder.port)), NODES, this.history)) {
			// a harness killed midway leaves no node or database running
			Thread cleanup = new Thread(() -> {
				nodes.handles().forEach(ProcessHandle::destroyForcibly);
				database.processes().forEach(ProcessHandle::destroyForcibly);
			});
			Runtime.getRuntime().addShutdownHook(cleanup);
			for (int node = 1; node <= NODES; node++) {
				nodes.start(node);
			}
			for (int node = 1; node <= NODES; node++) {
				nodes.awaitReady(node);
			}
			Faults faults = new Faults(network, forwarder, nodes, database, this.random, this.driftRates);
			long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
			this.kinds.retainAll(database.faults());
			if (this.kinds.isEmpty()) {
				throw new IllegalArgumentException("no kind of fault drawn that this database takes");
			}
			Fault[] kinds = this.kinds.toArray(new Fault[0]);
			// every kind first, in an order drawn from the seed (a long run shorter than
			// it
			// takes to draw them all by chance still covers them), then, in a long run,
			// kinds drawn at random until its time is up
			for (int i = 0; (minutes == 0) ? i < kinds.length : i < kinds.length || System.nanoTime() < until; i++) {
				Fault fault = (i < kinds.length)
						? kinds[(i + (int) Math.floorMod(this.seed, kinds.length)) % kinds.length]
						: kinds[this.random.nextInt(kinds.length)];
				int target = (this.targetLeaderOf != null) ? leaderOf(this.targetLeaderOf)
						: 1 + this.random.nextInt(NODES);
				this.history.add(System.nanoTime(), Kind.FAULT, "nemesis", fault + " n" + target, 0);
				this.injected.merge(fault, 1, Integer::sum);
				long[] healed = new long[1];
				try {
					faults.inject(fault, target, () -> {
						healed[0] = System.nanoTime();
						this.history.add(healed[0], Kind.HEALED, "nemesis", fault.name(), 0);
					});
				}
				catch (Exception | AssertionError ex) {
					// what happened up to the failure, for its reader
					writeHistory();
					throw ex;
				}
				// quiet: the cluster settles before the next fault, which comes no sooner
				// than the bound after the heal: a unit never led again is past it
				long judged = healed[0] + BOUND.plusMillis(400).toNanos() - System.nanoTime();
				TimeUnit.NANOSECONDS.sleep(Math.max(TimeUnit.MILLISECONDS.toNanos(1000), judged));
			}
			// the last fault's quiet ends here: the stop of every node is no fault
			this.history.add(System.nanoTime(), Kind.FAULT, "nemesis", "END", 0);
			nodes.close();
			Runtime.getRuntime().removeShutdownHook(cleanup);
			return report(database, System.nanoTime());
		}
	}

	/**
	 * The node that leads {@code unit}, once one does and a run of it has just ended
	 * there (within 20 s): its next run is then about to wait to begin.
	 */
	private int leaderOf(String unit) {
		long since = System.nanoTime();
		String process = org.awaitility.Awaitility.await(unit + " led and run")
			.atMost(java.time.Duration.ofSeconds(20))
			.pollInterval(java.time.Duration.ofMillis(10))
			.until(() -> this.history.believer(unit).filter((p) -> this.history.ranSince(p, unit, since)),
					java.util.Optional::isPresent)
			.orElseThrow();
		return Integer.parseInt(process.substring(1, process.indexOf('#')));
	}

	private List<String> args(List<String> database) {
		List<String> args = new java.util.ArrayList<>(database);
		args.addAll(this.nodeArgs);
		return args;
	}

	/** The history so far, to read or to check again ({@link Recheck}). */
	private void writeHistory() throws java.io.IOException {
		List<String> lines = new java.util.ArrayList<>(this.history.events().stream().map(Object::toString).toList());
		this.history.malformed().forEach((line) -> lines.add(History.MALFORMED + line));
		Files.write(this.logs.resolve("history.txt"), lines);
	}

	private Report report(SampleDatabase database, long end) throws Exception {
		Set<String> units = new TreeSet<>();
		long beliefs = 0;
		for (Event e : this.history.events()) {
			if (e.kind() == Kind.BELIEVES) {
				units.add(e.unit());
				beliefs++;
			}
		}
		Checker checker = new Checker().beliefs(this.history, end, units, BOUND);
		database.checkWrites(checker);
		Report report = new Report(this.seed, this.kinds, this.injected, units.size(), beliefs, database.runs(),
				database.fencedWrites(), checker.longestWithout(), checker.longestDuring(), BOUND,
				checker.violations());
		Files.writeString(this.logs.resolve("report.md"), report.table());
		writeHistory();
		return report;
	}

}
