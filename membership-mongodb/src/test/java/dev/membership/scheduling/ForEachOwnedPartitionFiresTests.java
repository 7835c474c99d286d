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
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ForEachOwnedPartition @Scheduled(fixedRate)} in an application: its task comes
 * off Spring's scheduler and each partition's owner fires it for that partition, once per
 * instant, each call running that one partition under its term, at most
 * {@code concurrency} at once, with each partition's fires recorded in its lease; fire
 * settings on a method whose fires cannot be the cluster's fail startup.
 */
@ExtendWith(FastPolling.class)
class ForEachOwnedPartitionFiresTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class, TaskSchedulingAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/partitionfires" + databases.incrementAndGet(),
					"membership.node-id=n1", "membership.advertised-address=127.0.0.1:9001",
					"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
					"membership.liveness-window=300ms", "membership.partitions.t=3",
					"spring.task.scheduling.pool.size=4");
	}

	@Test
	void eachOwnedPartitionIsFiredOncePerInstantOneAtATimeAndItsFiresAreRecordedInItsLease() {
		runner().withUserConfiguration(Jobs.class).run((context) -> {
			Membership membership = context.getBean(Membership.class);
			Runs recorder = context.getBean(Runs.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> recorder.runs.stream().map((run) -> run.substring(0, 1)).distinct().count() == 3
						&& recorder.runs.size() >= 9);
			// one call per partition and fire: a node's own scheduler firing too would
			// repeat them
			assertThat(recorder.runs).doesNotHaveDuplicates()
				.allSatisfy((run) -> assertThat(Instant.parse(run.substring(2)).toEpochMilli() % 300).isZero());
			assertThat(recorder.mostAtOnce.get()).as("concurrency = 1: one partition's run at a time").isEqualTo(1);
			MembershipStore store = context.getBean(MembershipStore.class);
			await().atMost(Duration.ofSeconds(2))
				.until(() -> store.findLease("t#2")
					.orElseThrow()
					.fires()
					.stream()
					.anyMatch((mark) -> mark.job().equals("recorder#perPartition") && mark.ended()));
			assertThat(membership.scheduledJobs()).extracting((job) -> job.partition()).containsExactly(0, 1, 2);
		});
	}

	@Test
	void fireSettingsOnAMethodWhoseFiresCannotBeTheClustersFailStartup() {
		runner().withUserConfiguration(Misused.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(GuardMisuseException.class)
				.hasMessageContaining("@ForEachOwnedPartition on Hourly.hourly sets fire, catchUp, missed or overlap");
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Jobs {

		@Bean
		Runs runs() {
			return new Runs();
		}

		@Bean
		Recorder recorder(Runs runs) {
			return new Recorder(runs);
		}

	}

	/**
	 * What the runs did (apart from the guarded bean, whose proxy's fields are not the
	 * target's).
	 */
	static class Runs {

		/** Each run, as {@code partition@fire}. */
		final List<String> runs = new CopyOnWriteArrayList<>();

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger mostAtOnce = new AtomicInteger();

	}

	static class Recorder {

		private final Runs runs;

		Recorder(Runs runs) {
			this.runs = runs;
		}

		@ForEachOwnedPartition(group = "t")
		@Scheduled(fixedRate = 300)
		public void perPartition() throws InterruptedException {
			this.runs.mostAtOnce.accumulateAndGet(this.runs.running.incrementAndGet(), Math::max);
			try {
				LeadershipTerm term = LeaderContext.currentTerm();
				Instant fire = LeaderContext.currentFire().orElseThrow();
				this.runs.runs.add(term.partition().getAsInt() + "@" + fire);
				// long enough for a second partition's run to overlap, were they let
				Thread.sleep(20);
			}
			finally {
				this.runs.running.decrementAndGet();
			}
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

			@ForEachOwnedPartition(group = "t", fire = FireMode.STRICT)
			@Scheduled(fixedDelay = 3_600_000)
			public void hourly() {
			}

		}

	}

}
