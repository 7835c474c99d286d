package dev.membership.scheduling;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A guard annotation that could not work as written fails startup, naming the method and
 * the fix.
 */
class GuardChecksTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/guards" + databases.incrementAndGet(),
					"membership.advertised-address=127.0.0.1:9199", "membership.renewal-interval=100ms",
					"membership.lease-duration=500ms", "membership.liveness-window=300ms",
					"membership.partitions.tenants=4");
	}

	@Test
	void aScheduledLeaderOnlyMethodWithoutSchedulingFailsStartupNamingItAndTheFix() {
		runner().withBean(Purge.class).run((context) -> {
			FailureAnalysis analysis = analysis(context);
			assertThat(analysis.getDescription()).contains("Purge.purge")
				.contains("scheduling is not enabled")
				.contains("never run");
			assertThat(analysis.getAction()).contains("@EnableScheduling")
				.contains("membership.leader-only.require-scheduling=false");
		});
	}

	@Test
	void withSchedulingEnabledItStartsAndTheLeaderRunsTheJob() {
		runner().withUserConfiguration(Scheduling.class).withBean(Purge.class).run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(Duration.ofSeconds(10)).until(() -> context.getBean(Purge.class).runs() > 0);
		});
	}

	@Test
	void anApplicationThatCallsItsMethodsItselfTurnsTheCheckOff() {
		runner().withBean(Purge.class)
			.withPropertyValues("membership.leader-only.require-scheduling=false")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aScheduledPerPartitionMethodWithoutSchedulingFailsStartup() {
		runner().withBean(Rollup.class).run((context) -> {
			FailureAnalysis analysis = analysis(context);
			assertThat(analysis.getDescription()).contains("@ForEachOwnedPartition").contains("Rollup.rollup");
			assertThat(analysis.getAction()).contains("@EnableScheduling");
		});
	}

	@Test
	void leaderOnlyOnAPartitionedGroupFailsStartupNamingForEachOwnedPartition() {
		runner().withUserConfiguration(Scheduling.class).withBean(WrongGroup.class).run((context) -> {
			FailureAnalysis analysis = analysis(context);
			assertThat(analysis.getDescription()).contains("WrongGroup.rollup")
				.contains("'tenants' is a partitioned group");
			assertThat(analysis.getAction()).contains("@ForEachOwnedPartition(group = \"tenants\")");
		});
	}

	@Test
	void aFinalLeaderOnlyMethodFailsStartup() {
		runner().withBean(FinalMethod.class).run((context) -> {
			FailureAnalysis analysis = analysis(context);
			assertThat(analysis.getDescription()).contains("FinalMethod.purge is final");
			assertThat(analysis.getAction()).contains("neither private, static nor final");
		});
	}

	@Test
	void aScheduledMethodThatTheClassAnnotationDoesNotGuardFailsStartup() {
		runner().withUserConfiguration(Scheduling.class).withBean(ClassGuarded.class).run((context) -> {
			FailureAnalysis analysis = analysis(context);
			assertThat(analysis.getDescription()).contains("ClassGuarded.purge")
				.contains("guards only the class's public methods");
			assertThat(analysis.getAction()).contains("Make ClassGuarded.purge public");
		});
	}

	@Test
	void withMembershipOffTheSchedulingCheckStillApplies() {
		runner().withBean(Purge.class).withPropertyValues("membership.enabled=false").run((context) -> {
			assertThat(analysis(context).getDescription()).contains("Purge.purge");
		});
	}

	@Test
	void aMaxRunTimeThatIsNoDurationFailsStartupNamingTheMethod() {
		runner().withBean(Slow.class).withPropertyValues("slow.limit=ten minutes").run((context) -> {
			FailureAnalysis analysis = analysis(context);
			assertThat(analysis.getDescription()).contains("@LeaderOnly(maxRunTime = \"${slow.limit}\") on Slow.run")
				.contains("not a duration");
			assertThat(analysis.getAction()).contains("30s, 10m or PT10M");
		});
	}

	@Test
	void aDefaultMaxRunTimeThatIsNoDurationFailsStartupNamingTheProperty() {
		runner().withBean(Rollup.class)
			.withUserConfiguration(Scheduling.class)
			.withPropertyValues("membership.leader-only.max-run-time=-5s")
			.run((context) -> assertThat(analysis(context).getDescription())
				.contains("membership.leader-only.max-run-time=-5s is negative"));
	}

	@Test
	void maxRunTimesResolvePlaceholdersAndFallBackOnTheDefault() {
		GuardedJobs jobs = new GuardedJobs();
		org.springframework.mock.env.MockEnvironment environment = new org.springframework.mock.env.MockEnvironment()
			.withProperty("slow.limit", "90s");
		jobs.environment(environment);
		assertThat(jobs.maxRunTime("${slow.limit}", "LeaderOnly", "Slow.run")).isEqualTo(Duration.ofSeconds(90));
		assertThat(jobs.maxRunTime("", "LeaderOnly", "Slow.run")).isZero();
		environment.setProperty("membership.leader-only.max-run-time", "PT10M");
		assertThat(jobs.maxRunTime("", "LeaderOnly", "Slow.run")).isEqualTo(Duration.ofMinutes(10));
		assertThat(jobs.maxRunTime("0", "LeaderOnly", "Slow.run")).isZero();
	}

	private static FailureAnalysis analysis(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new GuardMisuseFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	static class Purge {

		private final AtomicInteger runs = new AtomicInteger();

		@LeaderOnly
		@Scheduled(fixedDelay = 50)
		void purge() {
			this.runs.incrementAndGet();
		}

		public int runs() {
			return this.runs.get();
		}

	}

	static class Rollup {

		@ForEachOwnedPartition(group = "tenants")
		@Scheduled(fixedDelay = 50)
		public void rollup() {
		}

	}

	static class WrongGroup {

		@LeaderOnly(group = "tenants")
		@Scheduled(fixedDelay = 50)
		public void rollup() {
		}

	}

	static class FinalMethod {

		@LeaderOnly
		public final void purge() {
		}

	}

	@LeaderOnly
	static class ClassGuarded {

		@Scheduled(fixedDelay = 50)
		void purge() {
		}

	}

	static class Slow {

		@LeaderOnly(maxRunTime = "${slow.limit}")
		public void run() {
		}

	}

}
