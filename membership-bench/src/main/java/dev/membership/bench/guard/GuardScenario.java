package dev.membership.bench.guard;

import java.io.PrintStream;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import dev.membership.bench.support.Table;

/**
 * Runs {@link GuardBenchmark} under JMH, then counts the driver commands per call of each
 * guard in this JVM.
 */
public final class GuardScenario {

	public record Settings(int forks, int warmupIterations, int measurementIterations, TimeValue iterationTime,
			int countedCalls) {
	}

	private final Settings settings;

	private final PrintStream log;

	public GuardScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() throws RunnerException {
		Options options = new OptionsBuilder().include(GuardBenchmark.class.getName() + ".guardedCall")
			.forks(this.settings.forks())
			.warmupIterations(this.settings.warmupIterations())
			.warmupTime(this.settings.iterationTime())
			.measurementIterations(this.settings.measurementIterations())
			.measurementTime(this.settings.iterationTime())
			.threads(1)
			.jvmArgsAppend("-Xmx1g")
			.verbosity(VerboseMode.SILENT)
			.shouldFailOnError(true)
			.build();
		this.log.println("  JMH: " + this.settings.forks() + " fork(s), " + this.settings.warmupIterations() + " + "
				+ this.settings.measurementIterations() + " iterations of " + this.settings.iterationTime());
		Collection<RunResult> results = new Runner(options).run();
		Map<String, double[]> scores = new LinkedHashMap<>();
		for (RunResult result : results) {
			String guard = result.getParams().getParam("guard");
			scores.put(guard,
					new double[] { result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError() });
		}
		double leaderOnly = scores.get(GuardBenchmark.LEADER_ONLY_LEADER)[0];
		Table table = new Table("Leader-only guard cost (JMH, average time per call)", "guard", "ns/op", "+/- (99.9%)",
				"x LeaderOnly on leader", "driver commands per call");
		for (Map.Entry<String, double[]> e : scores.entrySet()) {
			double[] s = e.getValue();
			table.row(e.getKey(), Table.num(s[0], 1), Table.num(s[1], 1), Table.num(s[0] / leaderOnly, 1),
					Table.num(commandsPerCall(e.getKey()), 2));
		}
		table.note("Each guard is a Spring AOP proxy made by its library's own post-processor in a Spring context: "
				+ "@LeaderOnly by ours, @SchedulerLock by @EnableSchedulerLock(interceptMode = PROXY_METHOD) with "
				+ "ShedLock's MongoDB provider against the same embedded wire-protocol server. \"held-elsewhere\": "
				+ "another client holds the lock, so the call is skipped (ShedLock's follower). Commands: counted "
				+ "with a CommandListener over " + this.settings.countedCalls() + " calls in the harness's own JVM.");
		return table;
	}

	private double commandsPerCall(String guard) {
		GuardBenchmark bench = new GuardBenchmark();
		bench.guard = guard;
		bench.setUp();
		try {
			for (int i = 0; i < this.settings.countedCalls(); i++) {
				bench.guardedCall();
			}
			return GuardBenchmark.COMMANDS.total() / (double) this.settings.countedCalls();
		}
		finally {
			bench.tearDown();
		}
	}

}
