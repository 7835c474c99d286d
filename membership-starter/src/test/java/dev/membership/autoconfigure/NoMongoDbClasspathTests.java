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
 * Runs in its own surefire execution with every MongoDB, BSON, Spring Data MongoDB and Reactor jar removed from the
 * classpath (see the starter's pom): an application with its own store must start and lead with none of them, where a
 * filtered class loader could not show a NoClassDefFoundError.
 */
class NoMongoDbClasspathTests {

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
