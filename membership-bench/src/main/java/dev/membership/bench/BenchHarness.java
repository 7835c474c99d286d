package dev.membership.bench;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.openjdk.jmh.runner.options.TimeValue;

import dev.membership.bench.failover.Contender;
import dev.membership.bench.failover.FailoverScenario;
import dev.membership.bench.failover.PostgresContenders;
import dev.membership.bench.fence.FencedTransactionScenario;
import dev.membership.bench.fires.FireLatenessScenario;
import dev.membership.bench.fires.ScheduledFiresScenario;
import dev.membership.bench.guard.GuardScenario;
import dev.membership.bench.handover.WebHandOverScenario;
import dev.membership.bench.idle.IdleNodeScenario;
import dev.membership.bench.load.DatabaseLoadScenario;
import dev.membership.bench.parallel.ParallelPartitionsScenario;
import dev.membership.bench.postgres.PostgresLoadScenario;
import dev.membership.bench.scale.CostScenario;
import dev.membership.bench.scale.PartitionScenario;
import dev.membership.bench.scale.ScaleScenario;
import dev.membership.bench.support.EmbeddedPostgresServer;
import dev.membership.bench.support.Table;
import dev.membership.spi.MembershipSettings;

/**
 * Runs the benchmarks side by side and prints their tables (Markdown). Usage:
 * {@code bench.sh [guard] [load] [failover] [scale] [handover] [partitions] [--quick] [--out FILE] [--trials N]
 * [--leases MS,...] [--sizes N[@R],...]}; no scenario means all twelve. {@code --quick}
 * is the smoke run: tiny counts and short timings, seconds instead of minutes, figures
 * not worth quoting. {@code --trials} changes the failover and hand-over scenarios' trial
 * counts, {@code --leases} the failover scenario's leases; {@code --sizes} the scale
 * scenario's configurations, in order: {@code N} nodes at the production default timings,
 * or {@code N@R} renewing every R seconds (lease 3R, liveness window 2R). The default is
 * {@code 10,100,1000,2000,500@1} ({@code 10@1} with {@code --quick}); {@code --threads}
 * the threads the simulated nodes' loops share (32; 8 with {@code --quick}). For the
 * partitions scenario {@code --sizes} lists {@code NxP} cases (N nodes, P partitions;
 * default {@code 10x64,10x256,10x1024,100x64,100x256,100x1024}), and for the cost
 * scenario too (default N in 10, 100, 500, 2000 by P in 64, 1024, 4096).
 */
public final class BenchHarness {

	public static final List<String> SCENARIOS = List.of("guard", "load", "failover", "scale", "handover", "partitions",
			"postgres-load", "postgres-failover", "parallel", "idle", "cost", "fires", "fenced-tx", "lateness");

	private BenchHarness() {
	}

	public static void main(String[] args) throws Exception {
		List<Table> tables = run(args, System.out);
		System.exit(tables.isEmpty() ? 1 : 0);
	}

	public static List<Table> run(String[] args, PrintStream out) throws Exception {
		Set<String> chosen = new LinkedHashSet<>();
		boolean quick = false;
		Path file = null;
		Integer trials = null;
		List<Duration> leases = null;
		List<String> sizes = null;
		Integer threads = null;
		int windows = 1;
		for (int i = 0; i < args.length; i++) {
			switch (args[i]) {
				case "--quick" -> quick = true;
				case "--out" -> file = Path.of(args[++i]);
				case "--trials" -> trials = Integer.valueOf(args[++i]);
				case "--threads" -> threads = Integer.valueOf(args[++i]);
				case "--windows" -> windows = Integer.parseInt(args[++i]);
				case "--sizes" -> sizes = Arrays.stream(args[++i].split(",")).map(String::trim).toList();
				case "--leases" -> leases = Arrays.stream(args[++i].split(","))
					.map((ms) -> Duration.ofMillis(Long.parseLong(ms.trim())))
					.toList();
				default -> {
					if (!SCENARIOS.contains(args[i])) {
						throw new IllegalArgumentException("Unknown argument '" + args[i] + "'; scenarios: " + SCENARIOS
								+ ", options: --quick, --out FILE, --trials N, --leases MS[,MS...], "
								+ "--sizes N[@R][,N[@R]...], --threads N, --windows N");
					}
					chosen.add(args[i]);
				}
			}
		}
		if (chosen.isEmpty()) {
			chosen.addAll(SCENARIOS);
		}
		String header = machine(quick);
		out.println(header);
		List<Table> tables = new ArrayList<>();
		for (String scenario : chosen) {
			out.println("Running " + scenario + " ...");
			long started = System.nanoTime();
			Table table = switch (scenario) {
				case "guard" -> new GuardScenario(guardSettings(quick), out).run();
				case "load" -> new DatabaseLoadScenario(loadSettings(quick), out).run();
				case "failover" -> new FailoverScenario(failoverSettings(quick, trials, leases), out).run();
				case "scale" -> new ScaleScenario(scaleSettings(quick, sizes, threads), out).run();
				case "handover" -> new WebHandOverScenario(handOverSettings(quick, trials), out).run();
				case "partitions" -> new PartitionScenario(partitionSettings(quick, sizes, threads), out).run();
				case "postgres-load" -> new PostgresLoadScenario(postgresLoadSettings(quick), out).run();
				case "postgres-failover" -> postgresFailover(failoverSettings(quick, trials, leases), out);
				case "parallel" -> new ParallelPartitionsScenario(parallelSettings(quick), out).run();
				case "idle" -> new IdleNodeScenario(quick
						? new IdleNodeScenario.Settings(Duration.ofSeconds(1), Duration.ofSeconds(2))
						: new IdleNodeScenario.Settings(Duration.ofSeconds(60), Duration.ofSeconds(60), windows), out)
					.run();
				case "cost" -> new CostScenario(costSettings(quick, sizes, threads), out).run();
				case "fires" -> new ScheduledFiresScenario(firesSettings(quick), out).run();
				case "lateness" -> new FireLatenessScenario(quick ? 8 : 60, out).run();
				case "fenced-tx" -> new FencedTransactionScenario(quick
						? new FencedTransactionScenario.Settings(Duration.ofMillis(500), 1, 2, Duration.ofMillis(50),
								Duration.ofMillis(2))
						: new FencedTransactionScenario.Settings(Duration.ofSeconds(15), 2, 4, Duration.ofMillis(100),
								Duration.ofMillis(2)),
						out)
					.run();
				default -> throw new IllegalStateException(scenario);
			};
			out.printf("(%s took %.0f s)%n%n", scenario, (System.nanoTime() - started) / 1e9);
			out.println(table.render());
			tables.add(table);
		}
		if (file != null) {
			StringBuilder md = new StringBuilder(header).append('\n');
			tables.forEach((t) -> md.append(t.render()).append('\n'));
			Files.writeString(file, md, StandardCharsets.UTF_8);
		}
		return tables;
	}

	static GuardScenario.Settings guardSettings(boolean quick) {
		return quick ? new GuardScenario.Settings(0, 1, 1, TimeValue.milliseconds(100), 50)
				: new GuardScenario.Settings(2, 5, 5, TimeValue.seconds(1), 1000);
	}

	static ParallelPartitionsScenario.Settings parallelSettings(boolean quick) {
		return quick
				? new ParallelPartitionsScenario.Settings(2, 8, Duration.ofMillis(100), List.of(1, 16), 1,
						Duration.ofSeconds(30))
				: new ParallelPartitionsScenario.Settings(4, 64, Duration.ofSeconds(1), List.of(1, 16), 3,
						Duration.ofSeconds(60));
	}

	static PostgresLoadScenario.Settings postgresLoadSettings(boolean quick) {
		return quick
				? new PostgresLoadScenario.Settings(2, List.of(1), Duration.ofSeconds(1), Duration.ofSeconds(2),
						Duration.ofMillis(500))
				: new PostgresLoadScenario.Settings(3, List.of(1, 10), Duration.ofSeconds(20), Duration.ofSeconds(60),
						Duration.ofSeconds(5));
	}

	/**
	 * The failover scenario on one PostgreSQL server: ours and Spring Integration's JDBC
	 * leader.
	 */
	static Table postgresFailover(FailoverScenario.Settings settings, PrintStream out) throws Exception {
		try (EmbeddedPostgresServer server = new EmbeddedPostgresServer()) {
			List<Contender> contenders = PostgresContenders.on(server.url());
			try {
				Table table = new FailoverScenario(settings, out).run("Failover latency on PostgreSQL ("
						+ server.version() + "; 3 members each, a pool each; " + settings.trials() + " trials per row)",
						contenders);
				table.note("Crash: ours halts the node (no release, HTTP endpoint closed); Spring Integration's member "
						+ "loses its database before its initiator stops, so its lock row stays. Graceful: ours stops the "
						+ "node (release + broadcast), Spring Integration stops the initiator (unlock). Latency: from "
						+ "that instant until another member's own callback says it leads. ShedLock is not here: it has "
						+ "no leader, it locks each run, and a crashed holder's lock stays for lockAtMostFor by "
						+ "construction (its load is in the PostgreSQL load table).");
				return table;
			}
			finally {
				for (Contender contender : contenders) {
					contender.close();
				}
			}
		}
	}

	static DatabaseLoadScenario.Settings loadSettings(boolean quick) {
		if (quick) {
			return new DatabaseLoadScenario.Settings(List.of(1, 3), List.of(1), Duration.ofSeconds(1),
					Duration.ofSeconds(2),
					(id) -> MembershipSettings.builder(id)
						.renewalInterval(Duration.ofMillis(200))
						.leaseDuration(Duration.ofMillis(600))
						.livenessWindow(Duration.ofMillis(400))
						.build());
		}
		return new DatabaseLoadScenario.Settings(List.of(1, 3, 10), List.of(1, 10), Duration.ofSeconds(12),
				Duration.ofSeconds(60), (id) -> MembershipSettings.builder(id).build());
	}

	static FailoverScenario.Settings failoverSettings(boolean quick, Integer trials, List<Duration> leases) {
		List<Duration> defaultLeases = quick ? List.of(Duration.ofMillis(600))
				: List.of(Duration.ofSeconds(1), Duration.ofSeconds(15));
		return new FailoverScenario.Settings((leases != null) ? leases : defaultLeases,
				(trials != null) ? trials : (quick ? 1 : 20), Duration.ofSeconds(10));
	}

	static WebHandOverScenario.Settings handOverSettings(boolean quick, Integer trials) {
		return new WebHandOverScenario.Settings(List.of("servlet", "reactive"),
				(trials != null) ? trials : (quick ? 1 : 20), Duration.ofSeconds(30));
	}

	static ScaleScenario.Settings scaleSettings(boolean quick, List<String> sizes, Integer threads) {
		// N: N nodes at the production defaults (renew 5 s, lease 15 s, liveness 10 s);
		// N@R: renew R s, lease 3R, liveness 2R
		List<ScaleScenario.Config> configs = ((sizes != null) ? sizes
				: quick ? List.of("10@1") : List.of("10", "100", "1000", "2000", "500@1"))
			.stream()
			.map(ScaleScenario.Config::parse)
			.toList();
		int storeThreads = (threads != null) ? threads : (quick ? 8 : 32);
		return quick ? new ScaleScenario.Settings(configs, 2, 1, 1, Duration.ofSeconds(30), 200, storeThreads)
				: new ScaleScenario.Settings(configs, 4, 3, 2, Duration.ofMinutes(3).plusSeconds(30), 200,
						storeThreads);
	}

	static PartitionScenario.Settings partitionSettings(boolean quick, List<String> sizes, Integer threads) {
		// NxP: N nodes with P partitions of one group, at the production timings (renew 5
		// s, lease 15 s, liveness 10 s)
		List<PartitionScenario.Case> cases = ((sizes != null) ? sizes
				: quick ? List.of("3x16") : List.of("10x64", "10x256", "10x1024", "100x64", "100x256", "100x1024"))
			.stream()
			.map(PartitionScenario.Case::parse)
			.toList();
		return new PartitionScenario.Settings(cases, quick ? Duration.ofMillis(500) : Duration.ofSeconds(5),
				quick ? 2 : 3, Duration.ofMinutes(quick ? 1 : 3), (threads != null) ? threads : (quick ? 8 : 32),
				!Boolean.getBoolean("bench.partitions.no-notices"),
				Duration.ofSeconds(Long.getLong("bench.partitions.restart-grace-seconds", 0)));
	}

	static ScheduledFiresScenario.Settings firesSettings(boolean quick) {
		// three nodes, ten jobs on one rate, at the production timings (renew 5 s, lease
		// 15 s)
		return quick
				? new ScheduledFiresScenario.Settings(3, 10, Duration.ofSeconds(1), Duration.ofSeconds(3),
						Duration.ofSeconds(4), (id) -> MembershipSettings.builder(id).build())
				: new ScheduledFiresScenario.Settings(3, 10, Duration.ofSeconds(10), Duration.ofSeconds(20),
						Duration.ofMinutes(3), (id) -> MembershipSettings.builder(id).build());
	}

	static CostScenario.Settings costSettings(boolean quick, List<String> sizes, Integer threads) {
		// NxP at the production timings; the documented maximum of partitions a group
		// (4,096) included
		List<PartitionScenario.Case> cases = ((sizes != null) ? sizes
				: quick ? List.of("3x16")
						: List.of("10x64", "10x1024", "10x4096", "100x64", "100x1024", "100x4096", "500x64", "500x1024",
								"500x4096", "2000x64", "2000x1024", "2000x4096"))
			.stream()
			.map(PartitionScenario.Case::parse)
			.toList();
		return new CostScenario.Settings(cases, quick ? Duration.ofMillis(500) : Duration.ofSeconds(5), quick ? 2 : 6,
				Duration.ofMinutes(quick ? 1 : 4), (threads != null) ? threads : (quick ? 8 : 32), !quick);
	}

	static String machine(boolean quick) {
		Runtime rt = Runtime.getRuntime();
		return "Run " + ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME) + (quick ? " (--quick)" : "")
				+ "\nJava " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
				+ "; " + System.getProperty("os.name") + " " + System.getProperty("os.arch") + "; "
				+ rt.availableProcessors() + " processors; max heap " + rt.maxMemory() / (1024 * 1024) + " MiB; "
				+ "JVM args " + ManagementFactory.getRuntimeMXBean().getInputArguments() + "\n";
	}

}
