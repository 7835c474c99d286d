package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.ServletRegistrationBean;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.BroadcastReceiver;
import dev.membership.broadcast.ClusterBroadcaster;
import dev.membership.mongo.MongoBroadcastKeys;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(OutputCaptureExtension.class)
class BroadcastAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final String[] PROPERTIES = { "membership.advertised-address=127.0.0.1:8080",
			"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
			"membership.liveness-window=300ms" };

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(MongoAutoConfiguration.class,
			DataMongoAutoConfiguration.class, MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
			BroadcastAutoConfiguration.class);

	private final WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues(PROPERTIES)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/broadcastconfig");

	private final ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues(PROPERTIES)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/broadcastconfig");

	@Test
	void onInServletApplicationsWithAKeyKeptInMongoDB() {
		this.web.run((context) -> {
			assertThat(context).hasSingleBean(ClusterBroadcaster.class)
				.hasSingleBean(BroadcastReceiver.class)
				.hasBean("membershipBroadcastServlet");
			assertThat(context.getBean("membershipBroadcastServlet", ServletRegistrationBean.class).getUrlMappings())
				.containsExactly("/membership/broadcast");
			assertThat(context.getBean(BroadcastKeySource.class)).isInstanceOf(MongoBroadcastKeys.class);
			BroadcastKeyring first = context.getBean(BroadcastKeySource.class).keyring();
			// every node reading the database gets the same key
			BroadcastKeyring second = new MongoBroadcastKeys(
					context.getBean(org.springframework.data.mongodb.MongoDatabaseFactory.class).getMongoDatabase(),
					"clusterkeys", java.time.Duration.ofSeconds(1))
				.keyring();
			assertThat(second.primaryKeyId()).isEqualTo(first.primaryKeyId());
		});
	}

	@Test
	void everyBroadcastMetricsBeanIsUsedAndOneThatThrowsStopsNothing() {
		this.web.withUserConfiguration(OwnBroadcastMetrics.class).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ClusterBroadcaster.class);
			assertThat(OwnBroadcastMetrics.heard).contains("register");
		});
	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class OwnBroadcastMetrics {

		static final java.util.List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();

		@org.springframework.context.annotation.Bean
		@org.springframework.core.annotation.Order(1)
		dev.membership.broadcast.BroadcastMetrics throwingBroadcastMetrics() {
			return new dev.membership.broadcast.BroadcastMetrics() {

				@Override
				public void register() {
					throw new IllegalStateException("the application's metrics backend is down");
				}

			};
		}

		@org.springframework.context.annotation.Bean
		@org.springframework.core.annotation.Order(2)
		dev.membership.broadcast.BroadcastMetrics listeningBroadcastMetrics() {
			return new dev.membership.broadcast.BroadcastMetrics() {

				@Override
				public void register() {
					heard.add("register");
				}

			};
		}

	}

	@Test
	void onInReactiveApplicationsWithARouteInsteadOfAServlet() {
		this.reactive.run((context) -> {
			assertThat(context).hasSingleBean(ClusterBroadcaster.class)
				.hasSingleBean(BroadcastReceiver.class)
				.hasBean("membershipBroadcastRoute")
				.doesNotHaveBean("membershipBroadcastServlet");
			assertThat(context.getBean(BroadcastKeySource.class)).isInstanceOf(MongoBroadcastKeys.class);
		});
	}

	@Test
	void aReactiveApplicationWithOnlyTheReactiveDriverKeepsTheGeneratedKeyThroughIt() {
		this.reactive
			.withClassLoader(new FilteredClassLoader("com.mongodb.client.",
					"org.springframework.data.mongodb.MongoDatabaseFactory"))
			.withConfiguration(AutoConfigurations.of(MongoReactiveAutoConfiguration.class,
					DataMongoReactiveAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/reactivekeys")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasBean("membershipBroadcastRoute");
				// the reactive client's first connection may outlast this test's 100 ms
				// operation timeout: a failed read is retried at the next use
				BroadcastKeyring generated = await().atMost(Duration.ofSeconds(10))
					.ignoreExceptions()
					.until(() -> context.getBean(BroadcastKeySource.class).keyring(), (keys) -> keys != null);
				// the same key as a blocking reader of that database finds
				try (com.mongodb.client.MongoClient client = mongo.newClient()) {
					BroadcastKeyring read = new MongoBroadcastKeys(client.getDatabase("reactivekeys"), "clusterkeys",
							Duration.ofSeconds(1))
						.keyring();
					assertThat(read.primaryKeyId()).isEqualTo(generated.primaryKeyId());
				}
			});
	}

	@Test
	void usesKeysFromPropertiesPrimaryFirst() {
		String primary = "p".repeat(32);
		this.web.withPropertyValues("membership.broadcast.keys=" + primary + "," + "o".repeat(32))
			.run((context) -> assertThat(context.getBean(BroadcastKeySource.class).keyring().primaryKeyId())
				.isEqualTo(BroadcastKeyring.ofStrings(List.of(primary)).primaryKeyId()));
	}

	@Test
	void offWithALogLineWithoutAWebServer(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues(PROPERTIES)
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/broadcastconfig")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterBroadcaster.class));
		assertThat(output).contains("Cluster broadcast is off: this application runs no web server");
	}

	@Test
	void canBeSwitchedOff() {
		this.web.withPropertyValues("membership.broadcast.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterBroadcaster.class)
				.doesNotHaveBean("membershipBroadcastServlet"));
	}

	@Test
	void badBroadcastPropertiesFailFastNamingThem() {
		assertFailure("membership.broadcast.keys=short", "membership.broadcast.keys");
		assertFailure("membership.broadcast.path=nope", "membership.broadcast.path");
		assertFailure("membership.broadcast.read-timeout=0s", "membership.broadcast.read-timeout");
		assertFailure("membership.broadcast.connect-timeout=-1s", "membership.broadcast.connect-timeout");
		assertFailure("membership.broadcast.dedupe-window=0s", "membership.broadcast.dedupe-window");
		assertFailure("membership.broadcast.max-body-size=0B", "membership.broadcast.max-body-size");
	}

	private void assertFailure(String property, String expected) {
		this.web.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidMembershipSettingsFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as(property).isNotNull();
			assertThat(analysis.getDescription()).contains(expected);
		});
	}

}
