package dev.membership.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.Membership;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.leadership.FireMode;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @LeaderOnly @Scheduled(fixedRate)} in an application: its task comes off
 * Spring's scheduler and the leader fires it once per instant, aligned to the epoch of
 * the clock and never before it by the database's clock, with its fires recorded in the
 * lease; a {@code fixedDelay} method keeps Spring's scheduling and the plain guard; fire
 * settings on a method whose fires cannot be the cluster's fail startup.
 */
@ExtendWith(FastPolling.class)
class LeaderOnlyFiresTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class, TaskSchedulingAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/fires" + databases.incrementAndGet(),
					"membership.node-id=n1", "membership.advertised-address=127.0.0.1:9001",
					"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
					"membership.liveness-window=300ms");
	}

	@Test
	void aFixedRateJobIsFiredByTheLeaderOncePerInstantAndItsFiresAreRecordedInTheLease() {
		runner().withUserConfiguration(Jobs.class).run((context) -> {
			Membership membership = context.getBean(Membership.class);
			Jobs jobs = context.getBean(Jobs.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> jobs.rate.size() >= 2 && jobs.delay.size() >= 2);
			// over 1.5 s (five periods), five fires, six at most: a node's own scheduler
			// firing too would make ten
			int before = jobs.rate.size();
			await().during(Duration.ofMillis(1500))
				.atMost(Duration.ofSeconds(3))
				.until(() -> jobs.rate.size() - before <= 6);
			assertThat(jobs.rate.size() - before).isGreaterThanOrEqualTo(4);
			List<Instant> calls = List.copyOf(jobs.rate);
			for (int i = 1; i < calls.size(); i++) {
				// one call per fire: never two within one period, as a node's own
				// scheduler and the cluster's would make
				assertThat(Duration.between(calls.get(i - 1), calls.get(i))).isGreaterThan(Duration.ofMillis(150));
			}
			assertThat(calls).allSatisfy((at) -> assertThat(at.toEpochMilli() % 300)
				.as("at or just after a whole period since the epoch, by the database's clock")
				.isLessThan(150));
			// each run is its fire's: the fire reached the guard, which ran it under the
			// fire's term (a call the guard took for the application's own has none)
			assertThat(jobs.fires).hasSizeGreaterThanOrEqualTo(calls.size() - 1)
				.doesNotHaveDuplicates()
				.allSatisfy((fire) -> assertThat(fire.toEpochMilli() % 300).isZero());
			MembershipStore store = context.getBean(MembershipStore.class);
			await().atMost(Duration.ofSeconds(2))
				.until(() -> store.findLease("default")
					.orElseThrow()
					.fires()
					.stream()
					.anyMatch((mark) -> mark.job().equals("recorder#everyThreeTenths") && mark.ended()));
			assertThat(membership.isLeader("default")).isTrue();
			assertThat(membership.scheduledJobs()).singleElement().satisfies((job) -> {
				assertThat(job.job()).isEqualTo("recorder#everyThreeTenths");
				assertThat(job.group()).isEqualTo("default");
				assertThat(job.lastFire()).isNotNull();
				assertThat(job.nextFire()).as("the leader knows its next fire").isAfter(job.lastFire());
				assertThat(job.nextFire().toEpochMilli() % 300).isZero();
			});
		});
	}

	@Test
	void beansOfOneClassEachHaveTheirOwnFires() {
		runner().withUserConfiguration(ThreeTickers.class).run((context) -> {
			Membership membership = context.getBean(Membership.class);
			ThreeTickers tickers = context.getBean(ThreeTickers.class);
			// one ledger each: a fire of one bean never counts as another's, whatever
			// their order
			await().atMost(Duration.ofSeconds(10))
				.until(() -> tickers.ticks.values().stream().filter((fires) -> fires.size() >= 3).count() == 3);
			assertThat(membership.scheduledJobs()).extracting((job) -> job.job())
				.containsExactlyInAnyOrder("first#tick", "second#tick", "third#tick");
		});
	}

	@Test
	void fireSettingsOnAMethodWhoseFiresCannotBeTheClustersFailStartup() {
		runner().withUserConfiguration(Misused.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(GuardMisuseException.class)
				.hasMessageContaining("Hourly.hourly sets fire, catchUp, missed or overlap");
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Jobs {

		final List<Instant> rate = new CopyOnWriteArrayList<>();

		/** Each run's fire, as LeaderContext tells it. */
		final List<Instant> fires = new CopyOnWriteArrayList<>();

		final List<Instant> delay = new CopyOnWriteArrayList<>();

		@Bean
		Recorder recorder(Membership membership) {
			return new Recorder(this, membership);
		}

	}

	static class Recorder {

		private final Jobs jobs;

		private final Membership membership;

		Recorder(Jobs jobs, Membership membership) {
			this.jobs = jobs;
			this.membership = membership;
		}

		@LeaderOnly
		@Scheduled(fixedRate = 300)
		public void everyThreeTenths() {
			this.jobs.rate.add(this.membership.serverTimeEstimate().orElseThrow());
			this.jobs.fires.add(dev.membership.leadership.LeaderContext.currentFire().orElseThrow());
		}

		@LeaderOnly
		@Scheduled(fixedDelay = 300)
		public void afterEachRun() {
			this.jobs.delay.add(Instant.now());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class ThreeTickers {

		final java.util.Map<String, List<Instant>> ticks = new java.util.concurrent.ConcurrentHashMap<>();

		@Bean
		Ticker first() {
			return new Ticker("first", this.ticks);
		}

		@Bean
		Ticker second() {
			return new Ticker("second", this.ticks);
		}

		@Bean
		Ticker third() {
			return new Ticker("third", this.ticks);
		}

	}

	static class Ticker {

		private final List<Instant> fires = new CopyOnWriteArrayList<>();

		Ticker(String name, java.util.Map<String, List<Instant>> ticks) {
			ticks.put(name, this.fires);
		}

		@LeaderOnly
		@Scheduled(fixedRate = 300)
		public void tick() {
			this.fires.add(dev.membership.leadership.LeaderContext.currentFire().orElseThrow());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Misused {

		@Bean
		Misused.Hourly misused() {
			return new Misused.Hourly();
		}

		static class Hourly {

			@LeaderOnly(fire = FireMode.STRICT)
			@Scheduled(fixedDelay = 3_600_000)
			public void hourly() {
			}

		}

	}

}
