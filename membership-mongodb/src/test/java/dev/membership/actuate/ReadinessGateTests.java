package dev.membership.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The readiness gate tells the application it is ready on a thread of its own: an
 * application's readiness listener that is slow holds up none of the node's reactions.
 */
class ReadinessGateTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				ApplicationAvailabilityAutoConfiguration.class))
		.withUserConfiguration(MembershipActuatorTests.Faults.class, SlowReadinessListener.class)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/readiness-gate",
				"membership.advertised-address=127.0.0.1:8083", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms", "faults.down-at-start=true",
				"membership.mongo.operation-timeout=200ms");

	@Test
	void aSlowReadinessListenerHoldsUpNoneOfTheNodesReactions() {
		this.runner.run((context) -> {
			SlowReadinessListener slow = context.getBean(SlowReadinessListener.class);
			try {
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
				assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
				context.getBean(MembershipActuatorTests.Faults.class).store.heal();
				// the gate's "ready" waits in the slow listener; the node's reactions go
				// on meanwhile
				await().atMost(Duration.ofSeconds(5)).until(() -> slow.waiting.getCount() == 0);
				await().atMost(Duration.ofSeconds(5))
					.until(() -> slow.reactions.stream().anyMatch(LeaderElectedEvent.class::isInstance));
			}
			finally {
				slow.release.countDown();
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class SlowReadinessListener {

		final CountDownLatch waiting = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final List<MembershipEvent> reactions = new CopyOnWriteArrayList<>();

		@EventListener
		void on(AvailabilityChangeEvent<ReadinessState> event) throws InterruptedException {
			if (event.getState() == ReadinessState.ACCEPTING_TRAFFIC
					&& !(event.getSource() instanceof org.springframework.context.ApplicationContext)) {
				this.waiting.countDown();
				// registering with a slow service registry, say
				this.release.await(10, TimeUnit.SECONDS);
			}
		}

		/** A reaction of the node's own kind: told on the node's reactions lane. */
		@Bean
		MembershipEventListener leaderReaction() {
			return this.reactions::add;
		}

	}

}
