package dev.membership.autoconfigure;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import dev.membership.Membership;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.OneNodeStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter alone, which depends on no database at all: an application with its own
 * store starts and leads with no MongoDB or JDBC jar on the classpath.
 */
class OwnStoreApplicationTests {

	@Test
	void anApplicationsOwnStoreStartsAndLeadsWithNoMongoDbJarAtAll() {
		assertThat(ClassUtils.isPresent("com.mongodb.client.MongoClient", null)).as("the MongoDB driver is gone")
			.isFalse();
		assertThat(ClassUtils.isPresent("org.springframework.data.mongodb.MongoDatabaseFactory", null)).isFalse();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class, MembershipMetricsAutoConfiguration.class,
					MembershipActuatorAutoConfiguration.class, BroadcastAutoConfiguration.class))
			.withUserConfiguration(OwnStore.class)
			.withPropertyValues("membership.advertised-address=127.0.0.1:8080", "membership.renewal-interval=100ms",
					"membership.lease-duration=500ms", "membership.liveness-window=300ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnStore {

		@Bean
		MembershipStore membershipStore() {
			return OneNodeStore.create();
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

}
