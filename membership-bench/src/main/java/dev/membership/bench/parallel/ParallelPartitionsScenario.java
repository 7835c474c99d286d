package dev.membership.bench.parallel;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.membership.Membership;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;
import dev.membership.scheduling.ForEachOwnedPartition;

/**
 * Partitions in parallel: N Boot applications in this JVM (the starter, its
 * auto-configuration, one embedded database) with P partitions of group {@code tenants};
 * once balanced, every node calls its {@code @ForEachOwnedPartition} method at the same
 * moment, as each node's scheduler would, and each partition's run works for W (a sleep:
 * the bench measures the guard's scheduling, not the work). The time of each node's call
 * is one cycle; with concurrency 1 a node's partitions run one after another.
 */
public final class ParallelPartitionsScenario {

	public record Settings(int nodes, int partitions, Duration work, List<Integer> concurrencies, int cycles,
			Duration timeout) {
	}

	private final Settings settings;

	private final PrintStream log;

	public ParallelPartitionsScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() throws Exception {
		Table table = new Table(
				"Partitions in parallel (" + this.settings.nodes() + " Boot nodes in one JVM, "
						+ this.settings.partitions() + " partitions, " + this.settings.work().toMillis()
						+ " ms of work each; " + this.settings.cycles() + " cycles)",
				"concurrency", "partitions per node", "cycle median ms", "cycle max ms",
				"one after another would take ms");
		if (this.settings.concurrencies().stream().anyMatch((c) -> c != 1 && c != 16)) {
			throw new IllegalArgumentException("The bench's jobs have concurrency 1 and 16 (annotation constants)");
		}
		for (int concurrency : this.settings.concurrencies()) {
			List<Double> cycles = new ArrayList<>();
			int perNode;
			try (EmbeddedMongoServer mongo = new EmbeddedMongoServer()) {
				List<ConfigurableApplicationContext> nodes = new ArrayList<>();
				try {
					for (int i = 0; i < this.settings.nodes(); i++) {
						nodes.add(start(mongo, "p" + i, concurrency));
					}
					perNode = this.settings.partitions() / this.settings.nodes();
					Waits.until("every node owning " + perNode + " partitions", this.settings.timeout(),
							() -> nodes.stream().allMatch((n) -> owned(n) == perNode));
					ExecutorService callers = Executors.newFixedThreadPool(nodes.size());
					try {
						for (int c = 0; c < this.settings.cycles(); c++) {
							List<Future<Double>> calls = new ArrayList<>();
							for (ConfigurableApplicationContext node : nodes) {
								Rollup rollup = node.getBean(Rollup.class);
								calls.add(callers.submit(() -> {
									long start = System.nanoTime();
									rollup.rollup();
									return (System.nanoTime() - start) / 1e6;
								}));
							}
							for (Future<Double> call : calls) {
								cycles.add(call.get());
							}
							this.log.printf("  concurrency %d: cycle %d/%d done%n", concurrency, c + 1,
									this.settings.cycles());
						}
					}
					finally {
						callers.shutdownNow();
					}
				}
				finally {
					nodes.forEach(ConfigurableApplicationContext::close);
				}
			}
			Stats stats = new Stats(cycles);
			table.row(concurrency, perNode, Table.ms(stats.median()), Table.ms(stats.max()),
					Table.ms((double) perNode * this.settings.work().toMillis()));
		}
		table.note("A cycle: one node's call of its @ForEachOwnedPartition method, from the call until it returned "
				+ "(every run of the cycle ended), all nodes calling at once. Runs are registered with their "
				+ "partition's term on the thread that runs them, as in production.");
		return table;
	}

	private static int owned(ConfigurableApplicationContext node) {
		return node.getBean(Membership.class).partitions("tenants").owned().size();
	}

	private ConfigurableApplicationContext start(EmbeddedMongoServer mongo, String nodeId, int concurrency) {
		return new SpringApplicationBuilder(ParallelNode.class)
			.properties("spring.main.web-application-type=none", "spring.main.banner-mode=off",
					"spring.mongodb.uri=" + mongo.uri() + "/parallel", "membership.node-id=" + nodeId,
					"membership.advertised-address=127.0.0.1", "membership.renewal-interval=500ms",
					"membership.lease-duration=1500ms", "membership.liveness-window=1s",
					"membership.partitions.tenants=" + this.settings.partitions(),
					"bench.work-ms=" + this.settings.work().toMillis(),
					"bench.rollup=" + ((concurrency == 1) ? "sequential" : "parallel"), "logging.level.root=WARN",
					"logging.level.de.bwaldvogel=OFF")
			.run();
	}

	/** What a node's scheduler would call each cycle. */
	public interface Rollup {

		void rollup();

	}

	/** A node: the starter's auto-configuration and one partitioned job. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class ParallelNode {

		@Bean
		@ConditionalOnProperty(name = "bench.rollup", havingValue = "sequential")
		Rollup sequential(org.springframework.core.env.Environment environment) {
			return new Sequential(environment.getRequiredProperty("bench.work-ms", Long.class));
		}

		@Bean
		@ConditionalOnProperty(name = "bench.rollup", havingValue = "parallel")
		Rollup parallel(org.springframework.core.env.Environment environment) {
			return new Parallel(environment.getRequiredProperty("bench.work-ms", Long.class));
		}

	}

	/** Stands for a partition's work. */
	static void work(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	public static class Sequential implements Rollup {

		private final long workMillis;

		public Sequential(long workMillis) {
			this.workMillis = workMillis;
		}

		@Override
		@ForEachOwnedPartition(group = "tenants")
		public void rollup() {
			work(this.workMillis);
		}

	}

	public static class Parallel implements Rollup {

		private final long workMillis;

		public Parallel(long workMillis) {
			this.workMillis = workMillis;
		}

		@Override
		@ForEachOwnedPartition(group = "tenants", concurrency = 16)
		public void rollup() {
			work(this.workMillis);
		}

	}

}
