package dev.membership.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
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
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipMetricsAutoConfiguration;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeaderOnlyExecutionListener;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application's own {@link ElectionMetrics} and {@link LeaderOnlyExecutionListener}
 * beans beside the starter's meters: every one is called, in order, and one that throws
 * changes nothing for the others, the node or the work.
 */
class ApplicationMetricsTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				MembershipMetricsAutoConfiguration.class))
		.withUserConfiguration(OwnMetrics.class)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/application-metrics",
				"membership.advertised-address=127.0.0.1:8082", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void everyMetricsBeanHearsOfTheElectionAndOneThatThrowsStopsNothing() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			OwnMetrics own = context.getBean(OwnMetrics.class);
			await().atMost(Duration.ofSeconds(2)).until(() -> own.heard.contains("renewal default RENEWED"));
			assertThat(own.heard).contains("acquisition default ACQUIRED");
			assertThat(context.getBean(MeterRegistry.class)
				.counter("membership.leadership.acquisitions", "group", "default", "outcome", "acquired")
				.count()).isEqualTo(1);
		});
	}

	@Test
	void everyLeaderOnlyListenerHearsOfTheCallsAndOneThatThrowsStopsNoWork() {
		this.runner.withConfiguration(AutoConfigurations.of(LeaderOnlyAutoConfiguration.class))
			.withUserConfiguration(OwnListeners.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> context.getBean(Membership.class).isLeader("default"));
				OwnListeners own = context.getBean(OwnListeners.class);
				for (int i = 0; i < 3; i++) {
					assertThat(own.purge()).as("the work ran").isEqualTo("purged");
				}
				assertThat(OwnListeners.heard).containsExactly("OwnListeners.purge", "OwnListeners.purge",
						"OwnListeners.purge");
				assertThat(context.getBean(MeterRegistry.class)
					.counter("membership.leader.only.executions", "group", "default", "method", "OwnListeners.purge",
							"outcome", "executed")
					.count()).isEqualTo(3);
			});
	}

	@Test
	void aMeterFilterThatThrowsOnTheStoreTimerChangesNoStoreAnswer() {
		this.runner.withUserConfiguration(ThrowingMeterFilter.class).run((context) -> {
			assertThat(context).hasNotFailed();
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			long epoch = membership.leader("default").orElseThrow().epoch();
			// renewals go on: two leases later it still leads under the same epoch
			await().during(Duration.ofSeconds(1))
				.atMost(Duration.ofSeconds(2))
				.until(() -> membership.isLeader("default")
						&& membership.leader("default").orElseThrow().epoch() == epoch);
		});
	}

	/**
	 * An application's meter filter, applied to the registry before the node starts, that
	 * fails on the store timer.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ThrowingMeterFilter {

		@Bean
		static org.springframework.beans.factory.config.BeanPostProcessor throwingOnStoreCalls() {
			return new org.springframework.beans.factory.config.BeanPostProcessor() {

				@Override
				public Object postProcessAfterInitialization(Object bean, String name) {
					if (bean instanceof MeterRegistry registry) {
						registry.config().meterFilter(new io.micrometer.core.instrument.config.MeterFilter() {

							@Override
							public io.micrometer.core.instrument.config.MeterFilterReply accept(
									io.micrometer.core.instrument.Meter.Id id) {
								if (id.getName().equals("membership.store.operations")) {
									throw new IllegalStateException("an application's meter filter fails");
								}
								return io.micrometer.core.instrument.config.MeterFilterReply.NEUTRAL;
							}

						});
					}
					return bean;
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnListeners {

		/**
		 * Static: the configuration is itself a guarded bean, so the test holds a proxy
		 * of it.
		 */
		static final List<String> heard = new CopyOnWriteArrayList<>();

		@LeaderOnly
		public String purge() {
			return "purged";
		}

		@Bean
		@org.springframework.core.annotation.Order(1)
		LeaderOnlyExecutionListener throwingListener() {
			return new LeaderOnlyExecutionListener() {

				@Override
				public void executed(String group, String method) {
					throw new IllegalStateException("the application's metrics backend is down");
				}

				@Override
				public void skipped(String group, String method) {
					throw new IllegalStateException("the application's metrics backend is down");
				}

			};
		}

		@Bean
		@org.springframework.core.annotation.Order(2)
		LeaderOnlyExecutionListener listeningListener() {
			return new LeaderOnlyExecutionListener() {

				@Override
				public void executed(String group, String method) {
					OwnListeners.heard.add(method);
				}

				@Override
				public void skipped(String group, String method) {
					OwnListeners.heard.add("skipped " + method);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnMetrics {

		final List<String> heard = new CopyOnWriteArrayList<>();

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		@org.springframework.core.annotation.Order(1)
		ElectionMetrics throwingMetrics() {
			return new ElectionMetrics() {

				@Override
				public void acquisition(String group, AcquisitionOutcome outcome) {
					throw new IllegalStateException("the application's metrics backend is down");
				}

				@Override
				public void renewal(String group, RenewalOutcome outcome) {
					throw new IllegalStateException("the application's metrics backend is down");
				}

			};
		}

		@Bean
		@org.springframework.core.annotation.Order(2)
		ElectionMetrics listeningMetrics() {
			return new ElectionMetrics() {

				@Override
				public void acquisition(String group, AcquisitionOutcome outcome) {
					OwnMetrics.this.heard.add("acquisition " + group + " " + outcome);
				}

				@Override
				public void renewal(String group, RenewalOutcome outcome) {
					OwnMetrics.this.heard.add("renewal " + group + " " + outcome);
				}

			};
		}

	}

}
