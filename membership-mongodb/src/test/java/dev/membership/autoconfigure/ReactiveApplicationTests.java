package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.spi.WorkRegistry;
import dev.membership.Membership;
import dev.membership.leadership.LeaderContext;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.MembershipStore;
import dev.membership.mongo.ReactiveMongoMembershipStore;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application with only the reactive MongoDB driver (the blocking one hidden from the
 * auto-configuration): the node runs on its reactive database factory, with no second
 * client or connection pool, and leads as usual.
 */
@ExtendWith(FastPolling.class)
class ReactiveApplicationTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner reactiveOnly = new ApplicationContextRunner()
		.withClassLoader(
				new FilteredClassLoader("com.mongodb.client.", "org.springframework.data.mongodb.MongoDatabaseFactory"))
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MongoReactiveAutoConfiguration.class, DataMongoReactiveAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class))
		.withUserConfiguration(Jobs.class)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/reactive", "membership.node-id=reactive-1",
				"membership.advertised-address=127.0.0.1:8080", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void aReactiveOnlyApplicationElectsALeaderAndRunsLeaderOnlyWorkOnItsOwnDriver() {
		this.reactiveOnly.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(MembershipStore.class)).isInstanceOf(ReactiveMongoMembershipStore.class);
			// one client, the application's reactive one: no blocking client, factory or
			// pool of our own
			assertThat(context).hasSingleBean(com.mongodb.reactivestreams.client.MongoClient.class)
				.doesNotHaveBean(com.mongodb.client.MongoClient.class)
				.doesNotHaveBean(org.springframework.data.mongodb.MongoDatabaseFactory.class);
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			assertThat(membership.liveMembers()).hasSize(1);
			Jobs jobs = context.getBean(Jobs.class);
			long epoch = ((WorkRegistry) membership).currentTerm("default").orElseThrow().epoch();
			assertThat(jobs.purge()).isEqualTo(epoch);
			assertThat(jobs.runs()).isEqualTo(1);
		});
	}

	@Configuration(proxyBeanMethods = false)
	public static class Jobs {

		private final AtomicLong runs = new AtomicLong();

		public long runs() {
			return this.runs.get();
		}

		@LeaderOnly
		public Long purge() {
			this.runs.incrementAndGet();
			return LeaderContext.currentTerm().epoch();
		}

	}

}
