package dev.membership.bench.handover;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.ReactorResourceFactory;

import dev.membership.spi.LeadershipObserver;
import dev.membership.engine.MembershipNode;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;

/**
 * Graceful hand-over between nodes that are real Spring Boot applications, on each web
 * stack the broadcast receiver supports: a servlet one (Tomcat) and a reactive one
 * (WebFlux on Reactor Netty). Three nodes per stack; each trial closes the leader's
 * application context, as a rolling deploy's SIGTERM does, and measures how long until
 * another node leads: from the old leader's step-down to the new leader's start (both on
 * this JVM's monotonic clock), and from the close() call. A new node then joins, so every
 * trial starts with three.
 */
public final class WebHandOverScenario {

	public record Settings(List<String> stacks, int trials, Duration timeout) {
	}

	private final Settings settings;

	private final PrintStream out;

	public WebHandOverScenario(Settings settings, PrintStream out) {
		this.settings = settings;
		this.out = out;
	}

	public Table run() {
		Table table = new Table("Graceful hand-over between Spring Boot applications, by web stack", "web stack",
				"server", "trials", "step-down to new leader: median ms", "p90 ms", "max ms", "min ms",
				"close() to new leader: median ms");
		for (String stack : this.settings.stacks()) {
			measure(stack, table);
		}
		table.note("Three nodes per stack, production timings (renew 5 s, lease 15 s, liveness window 10 s), one "
				+ "embedded MongoDB stand-in; every node is an application context in this JVM with its own web server on "
				+ "127.0.0.1. The step-down is when the old leader's belief ended; the new leader learns of the release "
				+ "from the old one's signed broadcast to its web server, without waiting for a renewal interval.");
		return table;
	}

	private void measure(String stack, Table table) {
		Recorder recorder = new Recorder();
		List<Double> gaps = new ArrayList<>();
		List<Double> fromClose = new ArrayList<>();
		String server = "-";
		try (EmbeddedMongoServer mongo = new EmbeddedMongoServer()) {
			List<ConfigurableApplicationContext> nodes = new ArrayList<>();
			try {
				for (int i = 1; i <= 3; i++) {
					nodes.add(start(stack, "n" + i, mongo, recorder));
				}
				server = ((WebServerApplicationContext) nodes.get(0)).getWebServer().getClass().getSimpleName();
				awaitThreeLiveAndOneLeader(nodes);
				for (int trial = 0; trial < this.settings.trials(); trial++) {
					ConfigurableApplicationContext leader = nodes.stream()
						.filter((c) -> node(c).isLeader("default"))
						.findFirst()
						.orElseThrow();
					String leaderId = node(leader).nodeId();
					long epoch = node(leader).currentTerm("default").orElseThrow().epoch();
					long closing = System.nanoTime();
					leader.close();
					nodes.remove(leader);
					Waits.until("a new leader after " + leaderId + " stopped", this.settings.timeout(),
							() -> recorder.startedAt(epoch + 1) != null);
					gaps.add((recorder.startedAt(epoch + 1) - recorder.endedAt(epoch)) / 1e6);
					fromClose.add((recorder.startedAt(epoch + 1) - closing) / 1e6);
					nodes.add(start(stack, "r" + trial, mongo, recorder));
					awaitThreeLiveAndOneLeader(nodes);
				}
			}
			finally {
				nodes.forEach(ConfigurableApplicationContext::close);
			}
		}
		Stats stats = new Stats(gaps);
		this.out.printf("%s: step-down to new leader %s ms%n", stack, gaps.stream().map(Table::ms).toList());
		table.row(stack, server, stats.count(), Table.ms(stats.median()), Table.ms(stats.percentile(90)),
				Table.ms(stats.max()), Table.ms(stats.min()), Table.ms(new Stats(fromClose).median()));
	}

	private void awaitThreeLiveAndOneLeader(List<ConfigurableApplicationContext> nodes) {
		Waits.until("three live members and one leader", this.settings.timeout(),
				() -> nodes.stream().allMatch((c) -> node(c).liveMembers().size() == 3)
						&& nodes.stream().filter((c) -> node(c).isLeader("default")).count() == 1);
	}

	private static MembershipNode node(ConfigurableApplicationContext context) {
		return context.getBean(MembershipNode.class);
	}

	private static ConfigurableApplicationContext start(String stack, String nodeId, EmbeddedMongoServer mongo,
			Recorder recorder) {
		return new SpringApplicationBuilder(HandOverNode.class)
			.initializers((context) -> context.getBeanFactory().registerSingleton("handOverRecorder", recorder))
			.properties("spring.main.web-application-type=" + stack, "spring.main.banner-mode=off",
					"server.address=127.0.0.1", "server.port=0", "spring.mongodb.uri=" + mongo.uri() + "/handover",
					"membership.node-id=" + nodeId, "membership.advertised-address=127.0.0.1",
					"logging.level.root=WARN", "logging.level.de.bwaldvogel=OFF")
			.run();
	}

	/**
	 * A node: the starter's auto-configuration and nothing else; the recorder is its
	 * {@link LeadershipObserver}.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class HandOverNode {

		/**
		 * Reactor Netty's event loops of its own: by default every reactive application
		 * in a JVM shares the global ones, and closing the stopped leader's context would
		 * shut them down under the other nodes.
		 */
		@Bean
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		ReactorResourceFactory reactorResourceFactory() {
			ReactorResourceFactory resources = new ReactorResourceFactory();
			resources.setUseGlobalResources(false);
			// a closed node's loops need not wait for stragglers
			resources.setShutdownQuietPeriod(Duration.ZERO);
			return resources;
		}

	}

	/**
	 * When each epoch of {@code default} started and ended, on this JVM's monotonic
	 * clock.
	 */
	static final class Recorder implements LeadershipObserver {

		private final Map<Long, Long> started = new ConcurrentHashMap<>();

		private final Map<Long, Long> ended = new ConcurrentHashMap<>();

		@Override
		public void started(String nodeId, String group, long epoch, long atNanos) {
			if (group.equals("default")) {
				this.started.putIfAbsent(epoch, atNanos);
			}
		}

		@Override
		public void ended(String nodeId, String group, long epoch, long atNanos) {
			if (group.equals("default")) {
				this.ended.putIfAbsent(epoch, atNanos);
			}
		}

		Long startedAt(long epoch) {
			return this.started.get(epoch);
		}

		Long endedAt(long epoch) {
			return this.ended.get(epoch);
		}

	}

}
