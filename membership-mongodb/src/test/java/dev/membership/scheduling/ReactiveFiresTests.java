package dev.membership.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

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
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.ReactiveLeaderContext;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reactive {@code @Scheduled(fixedRate)} methods, {@code @LeaderOnly} and
 * {@code @ForEachOwnedPartition}: their tasks come off Spring's scheduler and each fire
 * subscribes once to the method's pipeline, registered under the fire's term, with the
 * fire in Reactor's context and in {@code LeaderContext} while the pipeline is made; each
 * fire's end (the pipeline's completion) is recorded in its lease.
 */
@ExtendWith(FastPolling.class)
class ReactiveFiresTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	@Test
	void eachFireSubscribesOnceToThePipelineWithItsFireInReactorsContext() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class, TaskSchedulingAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/reactivefires" + databases.incrementAndGet(),
					"membership.node-id=n1", "membership.advertised-address=127.0.0.1:9001",
					"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
					"membership.liveness-window=300ms", "membership.partitions.t=2")
			.withUserConfiguration(Jobs.class)
			.run((context) -> {
				Runs runs = context.getBean(Runs.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> runs.leader.size() >= 3 && runs.partitions.size() >= 6);
				assertThat(runs.leader).doesNotHaveDuplicates()
					.allSatisfy((fire) -> assertThat(fire.toEpochMilli() % 300).isZero());
				assertThat(runs.partitions).doesNotHaveDuplicates()
					.allSatisfy((run) -> assertThat(Instant.parse(run.substring(2)).toEpochMilli() % 300).isZero());
				assertThat(runs.partitions.stream().map((run) -> run.substring(0, 1)).distinct()).hasSize(2);
				assertThat(runs.assembled).as("the fire in LeaderContext while the pipeline is made").isEmpty();
				MembershipStore store = context.getBean(MembershipStore.class);
				await().atMost(Duration.ofSeconds(2))
					.until(() -> store.findLease("default")
						.orElseThrow()
						.fires()
						.stream()
						.anyMatch((mark) -> mark.job().equals("recorder#leaderOnly") && mark.ended()));
				await().atMost(Duration.ofSeconds(2))
					.until(() -> store.findLease("t#1")
						.orElseThrow()
						.fires()
						.stream()
						.anyMatch((mark) -> mark.job().equals("recorder#perPartition") && mark.ended()));
				assertThat(context.getBean(Membership.class).scheduledJobs()).hasSize(3);
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

	static class Runs {

		/** The leader's fires, as the pipeline's context told them. */
		final List<Instant> leader = new CopyOnWriteArrayList<>();

		/** Each partition's fires, as {@code partition@fire}. */
		final List<String> partitions = new CopyOnWriteArrayList<>();

		/** Pipelines made without their fire in {@code LeaderContext}. */
		final List<String> assembled = new CopyOnWriteArrayList<>();

	}

	static class Recorder {

		private final Runs runs;

		Recorder(Runs runs) {
			this.runs = runs;
		}

		@LeaderOnly
		@Scheduled(fixedRate = 300)
		public Mono<Void> leaderOnly() {
			if (LeaderContext.currentFire().isEmpty()) {
				this.runs.assembled.add("leaderOnly");
			}
			return Mono.delay(Duration.ofMillis(30))
				.then(ReactiveLeaderContext.currentFire())
				.doOnNext(this.runs.leader::add)
				.then();
		}

		@ForEachOwnedPartition(group = "t")
		@Scheduled(fixedRate = 300)
		public Flux<String> perPartition() {
			if (LeaderContext.currentFire().isEmpty()) {
				this.runs.assembled.add("perPartition");
			}
			return Mono.delay(Duration.ofMillis(30))
				.then(ReactiveLeaderContext.currentTerm())
				.zipWith(ReactiveLeaderContext.currentFire())
				.map((both) -> both.getT1().partition().getAsInt() + "@" + both.getT2())
				.doOnNext(this.runs.partitions::add)
				.flux();
		}

	}

}
