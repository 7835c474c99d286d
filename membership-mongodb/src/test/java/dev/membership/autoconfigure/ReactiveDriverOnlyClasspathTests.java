package dev.membership.autoconfigure;

import java.net.InetSocketAddress;
import java.time.Duration;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.util.ClassUtils;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.Membership;
import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.spi.MembershipStore;
import dev.membership.mongo.ReactiveMongoMembershipStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs in its own surefire execution with the blocking MongoDB driver's jar removed (see
 * the starter's pom): a WebFlux application on the reactive driver alone must start,
 * lead, and keep its broadcast key, where a filtered class loader could not show a
 * NoClassDefFoundError (it only hides classes from conditions).
 */
class ReactiveDriverOnlyClasspathTests {

	@Test
	void aWebFluxApplicationWithOnlyTheReactiveDriverLeadsAndKeepsItsBroadcastKey() {
		assertThat(ClassUtils.isPresent("com.mongodb.client.MongoClient", null)).as("the blocking driver is gone")
			.isFalse();
		MongoServer server = new MongoServer(new MemoryBackend());
		server.bind("127.0.0.1", 0);
		InetSocketAddress address = server.getLocalAddress();
		try {
			new ReactiveWebApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(MongoReactiveAutoConfiguration.class,
						DataMongoReactiveAutoConfiguration.class, MembershipMongoAutoConfiguration.class,
						MembershipAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
						BroadcastAutoConfiguration.class))
				.withPropertyValues("spring.mongodb.uri=mongodb://127.0.0.1:" + address.getPort() + "/reactiveonly",
						"membership.advertised-address=127.0.0.1:8080", "membership.renewal-interval=300ms",
						"membership.lease-duration=1500ms", "membership.liveness-window=900ms")
				.run((context) -> {
					assertThat(context).hasNotFailed().hasBean("membershipBroadcastRoute");
					assertThat(context.getBean(MembershipStore.class)).isInstanceOf(ReactiveMongoMembershipStore.class);
					Membership membership = context.getBean(Membership.class);
					await().atMost(Duration.ofSeconds(10)).until(() -> membership.isLeader("default"));
					BroadcastKeyring keys = await().atMost(Duration.ofSeconds(10))
						.ignoreExceptions()
						.until(() -> context.getBean(BroadcastKeySource.class).keyring(), (k) -> k != null);
					assertThat(keys.primaryKeyId()).isNotBlank();
				});
		}
		finally {
			server.shutdownNow();
		}
	}

}
