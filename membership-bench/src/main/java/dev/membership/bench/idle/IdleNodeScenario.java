package dev.membership.bench.idle;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.mongodb.client.MongoClient;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.membership.Membership;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;

/**
 * What one idle node costs the service it runs in: a user's web application (Tomcat,
 * MongoDB, the starter's auto-configuration, no jobs, default timings) started twice in
 * this JVM against one embedded database, with the starter on and with
 * {@code membership.enabled=false}. Counted: the threads the application started (alive
 * once it settled, those of the JVM and the embedded database left out), and their CPU
 * time over an idle window, per second. The starter's cost is the difference.
 */
public final class IdleNodeScenario {

	/**
	 * @param settle how long after the start before counting; @param window the idle time
	 * measured; @param windows how many windows one after another (the first and the last
	 * reported: code the JIT compiles late runs faster later)
	 */
	public record Settings(Duration settle, Duration window, int windows) {

		public Settings {
			if (windows < 1) {
				throw new IllegalArgumentException("--windows takes a count of one or more, not " + windows);
			}
		}

		public Settings(Duration settle, Duration window) {
			this(settle, window, 1);
		}

	}

	/**
	 * @param storeCallsAlone CPU ms/s of the store calls alone ({@link StoreCallsAlone}),
	 * or -1 where not run
	 */
	private record Measure(Map<String, Long> threads, double cpuMillisPerSecond, double membershipCpuMillisPerSecond,
			double storeCallsAlone) {
	}

	private final Settings settings;

	private final PrintStream log;

	public IdleNodeScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() {
		Table table = new Table("One idle node (a web application, default timings, no jobs; settle "
				+ this.settings.settle().toSeconds() + " s, window " + this.settings.window().toSeconds() + " s)",
				"application", "threads it started (alive after settling)", "their CPU ms/s",
				"of it on membership-* threads ms/s");
		List<Measure> withouts = measure(false);
		List<Measure> withs = measure(true);
		rows(table, withouts.get(0), withs.get(0), "");
		if (this.settings.windows() > 1) {
			long minute = this.settings.settle()
				.plus(this.settings.window().multipliedBy(this.settings.windows() - 1))
				.toSeconds();
			rows(table, withouts.get(withouts.size() - 1), withs.get(withs.size() - 1),
					" (window " + this.settings.windows() + ", from " + minute + " s after the start)");
		}
		table
			.note("Store calls alone: in the application without the starter, a thread of the bench makes the two store "
					+ "calls of an idle node's interval (the MongoDB store renews a lease and reads the node "
					+ "documents) every 5 s, through the application's client; its CPU is left out of the application's.");
		table.note("Threads by name, numbers folded (a pool's threads counted under one name). CPU: the threads' own "
				+ "CPU time (ThreadMXBean) over the window, of the threads the application started; GC and JIT "
				+ "threads are the JVM's and left out, as are the embedded database's (it stands for a server).");
		return table;
	}

	private static void rows(Table table, Measure without, Measure with, String when) {
		table.row("membership.enabled=false" + when, describe(without.threads()),
				String.format(Locale.ROOT, "%.2f", without.cpuMillisPerSecond()), "-");
		table.row("with the starter" + when, describe(with.threads()),
				String.format(Locale.ROOT, "%.2f", with.cpuMillisPerSecond()),
				String.format(Locale.ROOT, "%.2f", with.membershipCpuMillisPerSecond()));
		Map<String, Long> extra = new TreeMap<>(with.threads());
		without.threads().forEach((name, count) -> extra.merge(name, -count, Long::sum));
		extra.values().removeIf((count) -> count == 0);
		table.row("the starter's cost" + when, describe(extra),
				String.format(Locale.ROOT, "%.2f", with.cpuMillisPerSecond() - without.cpuMillisPerSecond()), "");
		table.row("its two store calls alone, every 5 s" + when, "1: " + StoreCallsAlone.THREAD, "-",
				String.format(Locale.ROOT, "%.2f", without.storeCallsAlone()));
	}

	private List<Measure> measure(boolean enabled) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		try (EmbeddedMongoServer mongo = new EmbeddedMongoServer()) {
			Set<Long> before = new HashSet<>();
			for (long id : mx.getAllThreadIds()) {
				before.add(id);
			}
			try (ConfigurableApplicationContext app = start(mongo, enabled);
					StoreCallsAlone alone = enabled ? null : new StoreCallsAlone(
							app.getBean(MongoClient.class).getDatabase("idle"), Duration.ofSeconds(5))) {
				if (enabled) {
					Waits.until("the node ready", Duration.ofMinutes(1),
							() -> app.getBean(Membership.class).status().ready());
				}
				Waits.pause(this.settings.settle());
				List<Measure> measures = new ArrayList<>();
				for (int w = 1; w <= this.settings.windows(); w++) {
					this.log.printf("  window %d of %d:%n", w, this.settings.windows());
					measures.add(window(mx, before, enabled, alone));
				}
				if (alone != null && alone.failures() > 0) {
					throw new IllegalStateException(alone.failures() + " of the store calls alone failed");
				}
				return measures;
			}
		}
	}

	private Measure window(ThreadMXBean mx, Set<Long> before, boolean enabled, @Nullable StoreCallsAlone alone) {
		Map<Long, Long> cpuBefore = cpu(mx, before);
		long aloneBefore = (alone != null) ? alone.cpuNanos() : 0;
		long start = System.nanoTime();
		Waits.pause(this.settings.window());
		double seconds = (System.nanoTime() - start) / 1e9;
		Map<Long, Long> cpuAfter = cpu(mx, before);
		double aloneMillisPerSecond = (alone != null) ? (alone.cpuNanos() - aloneBefore) / 1e6 / seconds : -1;
		double total = 0;
		double membership = 0;
		Map<String, Long> names = new TreeMap<>();
		Map<String, Double> own = new TreeMap<>();
		for (ThreadInfo info : mx.getThreadInfo(cpuAfter.keySet().stream().mapToLong(Long::longValue).toArray())) {
			if (info == null || info.getThreadName().startsWith("mongo-server")
					|| info.getThreadName().equals(StoreCallsAlone.THREAD)) {
				// the embedded database's own workers (the server's cost), the bench's
				// own calls
				continue;
			}
			long spent = cpuAfter.get(info.getThreadId()) - cpuBefore.getOrDefault(info.getThreadId(), 0L);
			total += spent / 1e6;
			if (info.getThreadName().startsWith("membership-")) {
				membership += spent / 1e6;
				own.put(info.getThreadName(), spent / 1e6 / this.settings.window().toSeconds());
			}
			names.merge(info.getThreadName().replaceAll("[0-9a-f]{6,}|\\d+", "N"), 1L, Long::sum);
		}
		if (!own.isEmpty()) {
			this.log.printf("  membership-* threads, CPU ms/s each: %s%n", own);
		}
		this.log.printf("  %s: %d threads %s; %.2f ms CPU/s (membership-*: %.2f)%n",
				enabled ? "with the starter" : "without", names.values().stream().mapToLong(Long::longValue).sum(),
				names, total / seconds, membership / seconds);
		if (alone != null) {
			this.log.printf("  the store calls alone: %.2f ms CPU/s%n", aloneMillisPerSecond);
		}
		return new Measure(names, total / seconds, membership / seconds, aloneMillisPerSecond);
	}

	private static Map<Long, Long> cpu(ThreadMXBean mx, Set<Long> excluded) {
		Map<Long, Long> cpu = new HashMap<>();
		for (long id : mx.getAllThreadIds()) {
			long time = excluded.contains(id) ? -1 : mx.getThreadCpuTime(id);
			if (time >= 0) {
				cpu.put(id, time);
			}
		}
		return cpu;
	}

	private static String describe(Map<String, Long> threads) {
		long total = threads.values().stream().mapToLong(Long::longValue).sum();
		List<String> each = threads.entrySet()
			.stream()
			.map((e) -> e.getKey() + ((e.getValue() != 1) ? " ×" + e.getValue() : ""))
			.toList();
		return total + ": " + String.join(", ", each);
	}

	private static ConfigurableApplicationContext start(EmbeddedMongoServer mongo, boolean enabled) {
		return new SpringApplicationBuilder(IdleApplication.class)
			.properties("spring.main.web-application-type=servlet", "spring.main.banner-mode=off",
					"server.address=127.0.0.1", "server.port=0", "spring.mongodb.uri=" + mongo.uri() + "/idle",
					"membership.enabled=" + enabled, "membership.node-id=idle",
					"membership.advertised-address=127.0.0.1", "logging.level.root=WARN",
					"logging.level.de.bwaldvogel=OFF")
			.run();
	}

	/** A user's application that does nothing of its own. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class IdleApplication {

	}

}
