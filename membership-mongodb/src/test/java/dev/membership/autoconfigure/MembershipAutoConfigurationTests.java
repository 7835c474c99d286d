package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.WriteConcern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.Membership;
import dev.membership.engine.MembershipNode;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.MongoStoreSettings;
import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.mongo.autoconfigure.MembershipMongoProperties;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FaultInjectingStore;
import dev.membership.testsupport.OneNodeStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;

@ExtendWith(OutputCaptureExtension.class)
class MembershipAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				ClusterOperationsAutoConfiguration.class))
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri(), "spring.mongodb.database=autoconfig",
				"membership.advertised-address=127.0.0.1:8080", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void joinsTheClusterThroughTheApplicationsMongoDatabaseAndPublishesSpringEvents() {
		this.runner.withUserConfiguration(ElectionListener.class)
			.withPropertyValues("spring.application.name=orders")
			.run((context) -> {
				assertThat(context).hasSingleBean(MembershipNode.class).hasSingleBean(MongoMembershipStore.class);
				Membership membership = context.getBean(Membership.class);
				assertThat(membership.nodeId()).matches("orders-[0-9a-f]{8}");
				await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
				assertThat(membership.advertisedAddress()).isEqualTo("127.0.0.1:8080");
				ElectionListener listener = context.getBean(ElectionListener.class);
				await().atMost(Duration.ofSeconds(2)).until(() -> !listener.elected.isEmpty());
			});
	}

	@Test
	void bindsEveryProperty() {
		this.runner.withPropertyValues("membership.node-id=node-7", "membership.safety-margin=50ms",
				"membership.dead-node-retention=5m", "membership.groups=alpha,beta", "membership.partitions.tenants=8",
				"membership.mongo.nodes-collection=n", "membership.mongo.leases-collection=l",
				"membership.mongo.operation-timeout=200ms", "membership.mongo.lease-write-concern=majority-journaled")
			.run((context) -> {
				MembershipSettings settings = context.getBean(MembershipSettings.class);
				assertThat(settings.nodeId()).isEqualTo("node-7");
				assertThat(settings.renewalInterval()).isEqualTo(Duration.ofMillis(100));
				assertThat(settings.leaseDuration()).isEqualTo(Duration.ofMillis(500));
				assertThat(settings.livenessWindow()).isEqualTo(Duration.ofMillis(300));
				assertThat(settings.safetyMargin()).isEqualTo(Duration.ofMillis(50));
				assertThat(settings.deadNodeRetention()).isEqualTo(Duration.ofMinutes(5));
				assertThat(settings.groups()).containsExactlyInAnyOrder("alpha", "beta", "default");
				assertThat(settings.partitions()).containsExactly(java.util.Map.entry("tenants", 8));
				MongoStoreSettings store = context.getBean(MongoMembershipStore.class).settings();
				assertThat(store.nodesCollection()).isEqualTo("n");
				assertThat(store.operationTimeout()).isEqualTo(Duration.ofMillis(200));
				assertThat(store.leaseWriteConcern()).isEqualTo(WriteConcern.MAJORITY.withJournal(true));
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("alpha"));
				// alone, the node is given every partition by the coordinator (itself)
				await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 8);
			});
	}

	@Test
	void switchedOffTheNodeNeverLeadsSoLeaderOnlyMethodsNeverRunAndOneWarningNamesThem(CapturedOutput output) {
		this.runner.withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
			.withUserConfiguration(HousekeepingJobs.class)
			.withPropertyValues("membership.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(Membership.class);
				HousekeepingJobs jobs = context.getBean(HousekeepingJobs.class);
				assertThat(jobs.purge()).isNull();
				assertThat(jobs.runs()).isZero();
				assertThat(output).containsOnlyOnce("these @LeaderOnly methods will not run here")
					.contains("HousekeepingJobs.purge (group 'default')");
			});
	}

	@Test
	void canBeSwitchedOff() {
		this.runner.withPropertyValues("membership.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MembershipNode.class)
				.doesNotHaveBean(MembershipStore.class)
				.doesNotHaveBean(MembershipSettings.class));
	}

	@Test
	void withNoStoreToMakeStartupFailsAndSaysWhatToAdd() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MembershipMongoAutoConfiguration.class,
					MembershipAutoConfiguration.class, ClusterOperationsAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new NoMembershipStoreFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("has nowhere to keep the cluster",
						"there is no MongoDatabaseFactory bean", "@LeaderOnly methods would never run");
				assertThat(analysis.getAction()).contains("spring-boot-starter-data-mongodb", "spring.mongodb.uri",
						"dev.membership.spi.MembershipStore", "membership.enabled=false");
			});
	}

	@Test
	void theJdbcStoreChosenWithoutMembershipJdbcFailsAndNamesTheModule() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MembershipMongoAutoConfiguration.class,
					MembershipAutoConfiguration.class, ClusterOperationsAutoConfiguration.class))
			.withPropertyValues("membership.store=jdbc")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new NoMembershipStoreFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("membership.store=jdbc names no store module on the classpath; there are: mongodb "
							+ "(dev.membership:membership-mongodb)");
				assertThat(analysis.getAction()).contains("dev.membership:membership-jdbc", "spring.datasource.url");
			});
	}

	@Test
	void withNoMongoDbDriverAtAllTheFailureSaysSo() {
		new ApplicationContextRunner()
			.withClassLoader(new FilteredClassLoader("com.mongodb", "org.springframework.data.mongodb"))
			.withConfiguration(AutoConfigurations.of(MembershipMongoAutoConfiguration.class,
					MembershipAutoConfiguration.class, ClusterOperationsAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(new NoMembershipStoreFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
					.contains(
							"dev.membership:membership-mongodb: there is no MongoDB driver and Spring Data MongoDB on "
									+ "the classpath");
			});
	}

	@Test
	void anApplicationsOwnStoreWorksWithNoMongoDbClassesAtAll() {
		new ApplicationContextRunner()
			.withClassLoader(new FilteredClassLoader("com.mongodb", "org.bson", "org.springframework.data.mongodb",
					"org.springframework.boot.mongodb", "org.springframework.boot.data.mongodb"))
			.withConfiguration(AutoConfigurations.of(MembershipMongoAutoConfiguration.class,
					MembershipAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
			.withUserConfiguration(InMemoryStore.class)
			.withPropertyValues("membership.advertised-address=127.0.0.1:8080", "membership.renewal-interval=100ms",
					"membership.lease-duration=500ms", "membership.liveness-window=300ms",
					"membership.mongo.lease-write-concern=not-even-looked-at")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(MembershipNode.class);
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			});
	}

	@Test
	void usesTheApplicationsOwnStore() {
		this.runner.withUserConfiguration(OwnStore.class).run((context) -> {
			assertThat(context).hasSingleBean(MembershipStore.class).doesNotHaveBean(MongoMembershipStore.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> context.getBean(OwnStore.class).store.operations() > 0);
		});
	}

	@Test
	void backsOffForTheApplicationsOwnMembership() {
		this.runner.withUserConfiguration(OwnMembership.class)
			.run((context) -> assertThat(context).hasSingleBean(Membership.class)
				.doesNotHaveBean(MembershipNode.class)
				.doesNotHaveBean(MembershipLifecycle.class));
	}

	@Test
	void aDatabaseUnreachableAtStartupDoesNotStopTheApplication() {
		int closedPort = EmbeddedMongo.freePort();
		this.runner
			.withPropertyValues("spring.mongodb.uri=mongodb://127.0.0.1:" + closedPort,
					"membership.mongo.operation-timeout=200ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(3)).until(() -> membership.status().consecutiveFailures() > 0);
				assertThat(membership.isLeader("default")).isFalse();
				assertThat(membership.status().ready()).isFalse();
			});
	}

	@Test
	void everyConfigurationRuleFailsFastNamingItsProperties() {
		assertFailure("membership.node-id= ", "membership.node-id");
		assertFailure("membership.renewal-interval=400ms", "membership.renewal-interval, membership.lease-duration");
		assertFailure("membership.liveness-window=100ms",
				"membership.renewal-interval, membership.liveness-window, membership.lease-duration");
		assertFailure("membership.liveness-window=500ms",
				"membership.renewal-interval, membership.liveness-window, membership.lease-duration");
		assertFailure("membership.renewal-interval=0s", "membership.renewal-interval: must be a positive duration");
		assertFailure("membership.lease-duration=-1s", "membership.lease-duration: must be a positive duration");
		assertFailure("membership.liveness-window=0ms", "membership.liveness-window: must be a positive duration");
		assertFailure("membership.safety-margin=450ms", "membership.safety-margin");
		assertFailure("membership.mongo.operation-timeout=600ms", "membership.mongo.operation-timeout");
		assertFailure("membership.mongo.lease-write-concern=sometimes",
				"membership.mongo.lease-write-concern: 'sometimes' is not a write concern");
		assertFailure("membership.mongo.lease-write-concern=w1",
				"membership.mongo.lease-write-concern: 'w1' is weaker than majority: a lease write acknowledged by "
						+ "fewer than a majority of the replica set can be rolled back by a failover, and then two "
						+ "nodes lead with the same epoch; use majority (the default) or majority-journaled");
		assertFailure("membership.mongo.lease-write-concern=journaled",
				"membership.mongo.lease-write-concern: 'journaled' is weaker than majority");
		assertFailure("membership.dead-node-retention=100ms", "membership.dead-node-retention");
		assertFailure("membership.partitions.tenants=0", "membership.partitions: a group has 1 to 4096 partitions");
		assertFailure("membership.partitions.default=4", "membership.partitions: the default group cannot be");
		assertFailure("membership.mongo.operation-timeout=5ms",
				"membership.mongo.operation-timeout: every database call would have to finish within 5 ms");
	}

	@Test
	void theStopFitsInSpringsShutdownPhaseAndADrainThatWouldNotIsRefused() {
		this.runner
			.withPropertyValues("membership.shutdown.drain-timeout=20s", "membership.lease-duration=15s",
					"membership.renewal-interval=5s", "membership.liveness-window=10s")
			.run((context) -> {
				// the default phase, 30 s: 20 s of drain, then the leave within what is
				// left,
				// less a margin
				assertThat(context.getBean(MembershipLifecycle.class).leaveTimeout())
					.isEqualTo(Duration.ofMillis(8500));
			});
		this.runner
			.withPropertyValues("membership.shutdown.drain-timeout=2s", "membership.lease-duration=1s",
					"membership.renewal-interval=200ms", "membership.liveness-window=500ms")
			.run((context) -> assertThat(context.getBean(MembershipLifecycle.class).leaveTimeout())
				.as("never longer than the lease")
				.isEqualTo(Duration.ofSeconds(1)));
		this.runner
			.withPropertyValues("membership.shutdown.drain-timeout=29s",
					"spring.lifecycle.timeout-per-shutdown-phase=30s")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains(
						"membership.shutdown.drain-timeout, spring.lifecycle.timeout-per-shutdown-phase: the drain (PT29S) "
								+ "must end at least PT2S before Spring's shutdown phase does (PT30S)")
					.contains("lower membership.shutdown.drain-timeout to PT28S or less");
				assertThat(analysis.getAction()).contains("spring.lifecycle.timeout-per-shutdown-phase");
			});
		this.runner
			.withPropertyValues("membership.shutdown.drain-timeout=50s",
					"spring.lifecycle.timeout-per-shutdown-phase=60000", "membership.lease-duration=15s",
					"membership.renewal-interval=5s", "membership.liveness-window=10s")
			.run((context) -> assertThat(context.getBean(MembershipLifecycle.class).leaveTimeout())
				.as("a bare number is milliseconds there, as Spring Boot reads it")
				.isEqualTo(Duration.ofMillis(8500)));
	}

	@Test
	void anUnsetDrainFollowsSpringsShutdownPhase() {
		this.runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=6s").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(MembershipSettings.class).drainTimeout()).as("2 s before the phase ends")
				.isEqualTo(Duration.ofSeconds(4));
		});
		this.runner.run((context) -> assertThat(context.getBean(MembershipSettings.class).drainTimeout())
			.isEqualTo(Duration.ofSeconds(20)));
		this.runner.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=1s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(new InvalidMembershipSettingsFailureAnalyzer().analyze(context.getStartupFailure())
				.getDescription())
				.contains("spring.lifecycle.timeout-per-shutdown-phase: Spring's shutdown phase (PT1S)")
				.contains("to at least PT2S");
		});
	}

	@Test
	void aDurationWithoutAUnitIsReadInSeconds() {
		this.runner
			.withPropertyValues("membership.renewal-interval=2", "membership.lease-duration=9",
					"membership.liveness-window=6", "membership.dead-node-retention=600",
					"membership.shutdown.drain-timeout=7", "membership.mongo.operation-timeout=1")
			.run((context) -> {
				MembershipSettings settings = context.getBean(MembershipSettings.class);
				assertThat(settings.renewalInterval()).isEqualTo(Duration.ofSeconds(2));
				assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(9));
				assertThat(settings.livenessWindow()).isEqualTo(Duration.ofSeconds(6));
				assertThat(settings.deadNodeRetention()).isEqualTo(Duration.ofMinutes(10));
				assertThat(settings.drainTimeout()).isEqualTo(Duration.ofSeconds(7));
				assertThat(context.getBean(MembershipMongoProperties.class).getOperationTimeout())
					.isEqualTo(Duration.ofSeconds(1));
			});
	}

	@Test
	void anIntervalSoShortThatNoDatabaseCallCanFinishIsRefusedWithTheReason() {
		this.runner
			.withPropertyValues("membership.renewal-interval=5ms", "membership.lease-duration=15",
					"membership.liveness-window=10")
			.run((context) -> {
				FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription()).contains(
						"membership.renewal-interval, membership.mongo.operation-timeout: every database call would "
								+ "have to finish within 5 ms (the operation timeout follows renewal-interval when "
								+ "unset)");
				assertThat(analysis.getAction())
					.startsWith("Change membership.renewal-interval, membership.mongo.operation-timeout as each line");
			});
	}

	@Test
	void aRestartGraceNeedsANodeIdThatSurvivesARestart() {
		this.runner.withPropertyValues("membership.rebalance.restart-grace=30s").run((context) -> {
			FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("membership.rebalance.restart-grace, membership.node-id:")
				.contains("membership.node-id=${HOSTNAME}");
		});
		this.runner.withPropertyValues("membership.rebalance.restart-grace=30s", "membership.node-id=worker-0")
			.run((context) -> assertThat(context.getBean(MembershipSettings.class).restartGrace())
				.isEqualTo(Duration.ofSeconds(30)));
		this.runner.withPropertyValues("membership.rebalance.restart-grace=20m", "membership.node-id=worker-0")
			.run((context) -> assertThat(
					new InvalidMembershipSettingsFailureAnalyzer().analyze(context.getStartupFailure())
						.getDescription())
				.contains("must be shorter than the dead-node retention"));
	}

	@Test
	void anUnknownMembershipPropertyFailsStartupNamingTheNearestValidOne() {
		this.runner
			.withPropertyValues("membership.lease=10s", "membership.mongo.operation-timout=1s",
					"membership.broadcast.keys[0]=0123456789abcdef0123456789abcdef", "membership.groups[0]=a")
			.run((context) -> {
				FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("membership.lease: is not a membership property, so it would be ignored; did you mean "
							+ "membership.lease-duration?")
					.contains("membership.mongo.operation-timout: is not a membership property, so it would be "
							+ "ignored; did you mean membership.mongo.operation-timeout?")
					.doesNotContain("broadcast.keys", "membership.groups");
			});
	}

	@Test
	void everyPropertyTheClassBindsIsKnown() {
		this.runner
			.withPropertyValues("membership.readiness.timeout=20s", "membership.shutdown.drain-timeout=5s",
					"membership.broadcast.deliver-to-self=false", "membership.mongo.keys-collection=k",
					"membership.safetyMargin=100ms")
			// another tool's, or a test's: not checked
			.withSystemProperties("membership.faults.seed=7")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void theFailureNamesOnlyTheRulesThatWereBroken() {
		this.runner.withPropertyValues("membership.dead-node-retention=100ms").run((context) -> {
			FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("membership.dead-node-retention")
				.contains("(was PT0.1S)")
				.doesNotContain("renewal-interval x 2", "safety-margin", "operation-timeout");
			assertThat(analysis.getAction())
				.startsWith("Change membership.dead-node-retention, "
						+ "membership.liveness-window as each line above says")
				.doesNotContain("renewal-interval x 2");
		});
	}

	private void assertFailure(String property, String expected) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer().analyze(failure);
			assertThat(analysis).as("analysis of %s", property).isNotNull();
			assertThat(analysis.getDescription()).as(property).contains(expected);
			assertThat(analysis.getAction()).startsWith("Change membership.");
			assertThat(analysis.getCause()).isInstanceOf(InvalidMembershipSettingsException.class);
		});
	}

	static class ElectionListener {

		final List<LeaderElectedEvent> elected = new ArrayList<>();

		@EventListener
		void on(LeaderElectedEvent event) {
			this.elected.add(event);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnStore {

		final FaultInjectingStore store;

		OwnStore() {
			this.store = new FaultInjectingStore(mock(MembershipStore.class));
			this.store.down();
		}

		@Bean
		MembershipStore membershipStore() {
			return this.store;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HousekeepingJobs {

		private final java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();

		public int runs() {
			return this.runs.get();
		}

		@LeaderOnly
		public String purge() {
			this.runs.incrementAndGet();
			return LeaderContext.currentTerm().toString();
		}

	}

	/** The application's own store, with no MongoDB behind it. */
	@Configuration(proxyBeanMethods = false)
	static class InMemoryStore {

		@Bean
		MembershipStore membershipStore() {
			return OneNodeStore.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnMembership {

		@Bean
		Membership membership() {
			return mock(Membership.class);
		}

	}

}
