package dev.membership.scheduling;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoClientSettingsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import dev.membership.Membership;
import dev.membership.autoconfigure.ClusterOperationsAutoConfiguration;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipMetricsAutoConfiguration;
import dev.membership.event.MembershipEvent;
import dev.membership.leadership.LeaderContext;
import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.spi.WorkRegistry;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(FastPolling.class)
class LeaderOnlyTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private ApplicationContextRunner runner(String database, String nodeId) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					ClusterOperationsAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
					MembershipMetricsAutoConfiguration.class))
			.withUserConfiguration(Jobs.class)
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/" + database, "membership.node-id=" + nodeId,
					"membership.advertised-address=127.0.0.1:" + (9000 + nodeId.hashCode() % 100),
					"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
					"membership.liveness-window=300ms");
	}

	@Test
	void runsOnTheLeaderOnlyAcrossThreeNodesWithoutTouchingTheDatabase() {
		String db = "leaderonly" + databases.incrementAndGet();
		runner(db, "a").run((a) -> runner(db, "b").run((b) -> runner(db, "c").run((c) -> {
			List<AssertableApplicationContext> nodes = List.of(a, b, c);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> nodes.stream().filter((n) -> n.getBean(Membership.class).isLeader("default")).count() == 1
						&& nodes.stream().allMatch((n) -> n.getBean(Membership.class).liveMembers().size() == 3));
			for (AssertableApplicationContext node : nodes) {
				Jobs jobs = node.getBean(Jobs.class);
				CommandCounter commands = node.getBean(CommandCounter.class);
				long before = commands.onThisThread();
				for (int i = 0; i < 1000; i++) {
					jobs.purge();
				}
				// the background loop issues commands on its own threads; none may come
				// from the calling thread
				assertThat(commands.onThisThread() - before).as("driver commands per 1000 calls").isZero();
			}
			AssertableApplicationContext leader = nodes.stream()
				.filter((n) -> n.getBean(Membership.class).isLeader("default"))
				.findFirst()
				.orElseThrow();
			for (AssertableApplicationContext node : nodes) {
				int expected = (node == leader) ? 1000 : 0;
				assertThat(node.getBean(Jobs.class).purges()).isEqualTo(expected);
				MeterRegistry registry = node.getBean(MeterRegistry.class);
				double skipped = registry
					.counter("membership.leader.only.executions", "group", "default", "method", "Jobs.purge", "outcome",
							"skipped")
					.count();
				double executed = registry
					.counter("membership.leader.only.executions", "group", "default", "method", "Jobs.purge", "outcome",
							"executed")
					.count();
				assertThat(skipped).isEqualTo(1000 - expected);
				assertThat(executed).isEqualTo(expected);
			}
		})));
	}

	@Test
	void aFollowerGetsEmptyResultsAndTheLeaderGetsItsTerm() {
		String db = "leaderonly" + databases.incrementAndGet();
		runner(db, "x").run((x) -> runner(db, "y").run((y) -> {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> x.getBean(Membership.class).isLeader("default")
						^ y.getBean(Membership.class).isLeader("default"));
			AssertableApplicationContext leader = x.getBean(Membership.class).isLeader("default") ? x : y;
			AssertableApplicationContext follower = (leader == x) ? y : x;
			Jobs onFollower = follower.getBean(Jobs.class);
			assertThat(onFollower.report()).isEmpty();
			assertThat(onFollower.count()).isZero();
			assertThat(onFollower.flag()).isFalse();
			assertThat(onFollower.epochFromContext()).isNull();
			Jobs onLeader = leader.getBean(Jobs.class);
			long epoch = ((WorkRegistry) leader.getBean(Membership.class)).currentTerm("default").orElseThrow().epoch();
			assertThat(onLeader.report()).contains("report");
			assertThat(onLeader.count()).isEqualTo(42);
			assertThat(onLeader.flag()).isTrue();
			assertThat(onLeader.epochFromContext()).isEqualTo(epoch);
			assertThat(LeaderContext.isActive()).isFalse(); // only inside the call
			assertThat(leader.getBean(Membership.class).runIfLeader("default", () -> {
			})).isTrue();
			assertThat(follower.getBean(Membership.class).runIfLeader("default", () -> {
			})).isFalse();
		}));
	}

	@Test
	void aGroupNamedInTheAnnotationIsCompetedFor() {
		String db = "leaderonly" + databases.incrementAndGet();
		runner(db, "solo").run((context) -> {
			Membership membership = context.getBean(Membership.class);
			assertThat(membership.groups()).contains("default", "reports");
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("reports"));
			assertThat(context.getBean(ClassLevelJobs.class).nightly()).isEqualTo("ran");
			context.getBean(ClusterOperations.class).resign(new Resign("reports", Requester.of("test")));
			// on a node that does not lead, the class's own methods are skipped but
			// Object's are not
			assertThat(context.getBean(ClassLevelJobs.class).nightly()).isNull();
			assertThat(context.getBean(ClassLevelJobs.class).toString()).contains("ClassLevelJobs");
		});
	}

	@Test
	void aRunningMethodIsInterruptedWhenLeadershipIsRevoked() throws Exception {
		String db = "leaderonly" + databases.incrementAndGet();
		runner(db, "interrupted").run(this::interruptedOnResign);
	}

	@Test
	void aRunningMethodIsInterruptedEvenWhenAnApplicationListenerThrowsOnEveryEvent() throws Exception {
		String db = "leaderonly" + databases.incrementAndGet();
		runner(db, "interrupted").withUserConfiguration(ThrowingListener.class).run((context) -> {
			interruptedOnResign(context);
			assertThat(context.getBean(ThrowingListener.class).failures.get()).isPositive();
		});
	}

	private void interruptedOnResign(AssertableApplicationContext context) throws Exception {
		Membership membership = context.getBean(Membership.class);
		await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
		Jobs jobs = context.getBean(Jobs.class);
		AtomicReference<String> outcome = new AtomicReference<>();
		AtomicReference<Boolean> interruptedAfterwards = new AtomicReference<>();
		Thread runner = new Thread(() -> {
			outcome.set(jobs.longRunning());
			// the thread may go back to a pool: the interrupt the term sent must not
			// outlive the call
			interruptedAfterwards.set(Thread.currentThread().isInterrupted());
		});
		runner.start();
		assertThat(jobs.longRunningStarted().await(5, TimeUnit.SECONDS)).isTrue();
		context.getBean(ClusterOperations.class).resign(new Resign("default", Requester.of("test")));
		runner.join(5000);
		assertThat(outcome.get()).isEqualTo("interrupted");
		assertThat(interruptedAfterwards.get()).isFalse();
		await().atMost(Duration.ofSeconds(2)).until(() -> !membership.isLeader("default"));
	}

	/** Throws on every membership event, of every type, before any other listener. */
	static class ThrowingListener {

		final AtomicInteger failures = new AtomicInteger();

		@EventListener
		@Order(Ordered.HIGHEST_PRECEDENCE)
		void on(MembershipEvent event) {
			this.failures.incrementAndGet();
			throw new IllegalStateException("application listener fails on " + event);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		final AtomicInteger purges = new AtomicInteger();

		final CountDownLatch longRunningStarted = new CountDownLatch(1);

		@Bean
		CommandCounter commandCounter() {
			return new CommandCounter();
		}

		@Bean
		MongoClientSettingsBuilderCustomizer countCommands(CommandCounter counter) {
			return (settings) -> settings.addCommandListener(counter);
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		ClassLevelJobs classLevelJobs() {
			return new ClassLevelJobs();
		}

		// fields of a CGLIB proxy are not the target's: read them through methods
		public int purges() {
			return this.purges.get();
		}

		public CountDownLatch longRunningStarted() {
			return this.longRunningStarted;
		}

		@LeaderOnly
		public void purge() {
			this.purges.incrementAndGet();
		}

		@LeaderOnly
		public Optional<String> report() {
			return Optional.of("report");
		}

		@LeaderOnly
		public int count() {
			return 42;
		}

		@LeaderOnly
		public boolean flag() {
			return true;
		}

		@LeaderOnly
		public Long epochFromContext() {
			return LeaderContext.currentTerm().epoch();
		}

		@LeaderOnly(interruptOnRevoke = true)
		public String longRunning() {
			this.longRunningStarted.countDown();
			try {
				Thread.sleep(30_000); // the work; interrupted on revocation
				return "finished";
			}
			catch (InterruptedException ex) {
				// as well-behaved code does: the flag stays set until the guard
				Thread.currentThread().interrupt();
				return "interrupted";
			}
		}

	}

	@LeaderOnly(group = "reports")
	static class ClassLevelJobs {

		public String nightly() {
			return "ran";
		}

	}

	/**
	 * Counts the driver's commands per issuing thread (the sync driver sends on the
	 * caller's thread).
	 */
	static class CommandCounter implements CommandListener {

		private final Map<Thread, AtomicLong> byThread = new ConcurrentHashMap<>();

		@Override
		public void commandStarted(CommandStartedEvent event) {
			this.byThread.computeIfAbsent(Thread.currentThread(), (t) -> new AtomicLong()).incrementAndGet();
		}

		long onThisThread() {
			AtomicLong count = this.byThread.get(Thread.currentThread());
			return (count != null) ? count.get() : 0;
		}

		long total() {
			return this.byThread.values().stream().mapToLong(AtomicLong::get).sum();
		}

	}

}
