package dev.membership.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.Membership;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.ClusterOperationsAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipObservationAutoConfiguration;
import dev.membership.scheduling.ForEachOwnedPartition;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;
import dev.membership.operations.Requester;
import dev.membership.operations.ClusterOperations;
import dev.membership.operations.Resign;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Every run of guarded work is one observation {@code membership.run}, named after its
 * job ({@code bean#method}), tagged with group, job, outcome and partition, nested in the
 * observation it was called in, and none for a call that did not run.
 */
@ExtendWith(FastPolling.class)
class RunObservationTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				ClusterOperationsAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
				MembershipObservationAutoConfiguration.class))
		.withUserConfiguration(Observed.class)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/observations", "membership.node-id=o1",
				"membership.advertised-address=127.0.0.1:9191", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms",
				"membership.partitions.tenants=2");

	@Test
	void eachRunIsAnObservationWithItsOutcomeNestedInItsCaller() {
		this.runner.run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> membership.isLeader("reports") && membership.partitions("tenants").owned().size() == 2);
			Jobs jobs = context.getBean(Jobs.class);
			Recorder recorder = context.getBean(Recorder.class);
			ObservationRegistry registry = context.getBean(ObservationRegistry.class);

			Observation.createNotStarted("scheduled", registry).observe(jobs::nightly);
			assertThatThrownBy(jobs::failing).hasMessage("no disk");
			jobs.perTenant();

			List<Observation.Context> runs = recorder.stopped.stream()
				.filter((c) -> c.getName().equals("membership.run"))
				.toList();
			assertThat(runs).hasSize(4);
			Observation.Context nightly = runs.get(0);
			assertThat(nightly.getContextualName()).isEqualTo("jobs#nightly");
			assertThat(nightly.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("group", "reports"),
					KeyValue.of("job", "jobs#nightly"), KeyValue.of("outcome", "success"),
					KeyValue.of("partition", "none"));
			assertThat(nightly.getHighCardinalityKeyValues()).contains(KeyValue.of("node", "o1"));
			assertThat(nightly.getParentObservation()).isNotNull();
			assertThat(nightly.getParentObservation().getContextView().getName()).isEqualTo("scheduled");
			Observation.Context failing = runs.get(1);
			assertThat(failing.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("error");
			assertThat(failing.getError()).hasMessage("no disk");
			assertThat(runs.subList(2, 4)).extracting((c) -> c.getLowCardinalityKeyValue("partition").getValue())
				.containsExactlyInAnyOrder("0", "1");
			assertThat(runs.subList(2, 4)).allSatisfy(
					(c) -> assertThat(c.getLowCardinalityKeyValue("job").getValue()).isEqualTo("jobs#perTenant"));

			context.getBean(ClusterOperations.class).resign(new Resign("reports", Requester.of("test")));
			await().atMost(Duration.ofSeconds(5)).until(() -> !membership.isLeader("reports"));
			jobs.nightly(); // skipped on a follower: no observation
			assertThat(recorder.stopped.stream().filter((c) -> c.getName().equals("membership.run"))).hasSize(4);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Observed {

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

		@Bean
		ObservationRegistry observationRegistry(Recorder recorder) {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(recorder);
			return registry;
		}

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

	}

	static class Recorder implements ObservationHandler<Observation.Context> {

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		@Override
		public void onStop(Observation.Context context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	public static class Jobs {

		@LeaderOnly(group = "reports")
		public void nightly() {
		}

		@LeaderOnly(group = "reports")
		public void failing() {
			throw new IllegalStateException("no disk");
		}

		@ForEachOwnedPartition(group = "tenants")
		public void perTenant() {
		}

	}

}
