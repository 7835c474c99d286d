package dev.membership.autoconfigure;

import java.time.Duration;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import dev.membership.Membership;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.OneNodeStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
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

	/**
	 * The starter with no store module in a web application on a real server (the pom of
	 * a MongoDB user of the version before the stores became modules): the failure names
	 * the module to add, not the broadcast key that a store module would have kept, which
	 * the web server's start asks for first. Before: "no key is configured and the store
	 * keeps none".
	 */
	@Test
	void aWebApplicationWithoutAStoreModuleIsToldToAddOneFirst() {
		SpringApplication application = new SpringApplicationBuilder(WebApplication.class)
			.web(WebApplicationType.SERVLET)
			.properties("server.port=0", "server.address=127.0.0.1", "spring.main.banner-mode=off")
			.build();
		assertThatException().isThrownBy(application::run).satisfies((failure) -> {
			FailureAnalysis analysis = new NoMembershipStoreFailureAnalyzer().analyze(failure);
			assertThat(analysis).as("%s", failure).isNotNull();
			assertThat(analysis.getAction()).contains("dev.membership:membership-mongodb",
					"dev.membership:membership-jdbc");
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WebApplication {

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
