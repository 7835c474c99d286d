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

import dev.membership.Membership;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipMetricsAutoConfiguration;
import dev.membership.spi.ElectionMetrics;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application's own {@link ElectionMetrics} beans beside the starter's meters: every one is called, in order, and
 * one that throws changes nothing for the others or for the node.
 */
class ApplicationMetricsTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipAutoConfiguration.class, MembershipMetricsAutoConfiguration.class))
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
