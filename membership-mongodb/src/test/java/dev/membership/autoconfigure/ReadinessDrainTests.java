package dev.membership.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.Membership;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The node follows the application's readiness: refusing traffic drains it, accepting
 * traffic undrains it; the starter's own readiness gate and the refusal Spring Boot
 * publishes as the context closes (its source is the context) do not;
 * {@code membership.follow-readiness=false} turns it off.
 */
class ReadinessDrainTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				ApplicationAvailabilityAutoConfiguration.class, MembershipMongoAutoConfiguration.class,
				MembershipAutoConfiguration.class))
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/readiness", "membership.node-id=ready",
				"membership.advertised-address=127.0.0.1:8090", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void refusingTrafficDrainsTheNodeAndAcceptingTrafficUndrainsIt() {
		this.runner.run((context) -> {
			Membership node = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("default"));
			assertThat(node.status().drained()).as("the gate's own refusal at startup drains nothing").isFalse();

			AvailabilityChangeEvent.publish(context, context.getSourceApplicationContext(),
					ReadinessState.REFUSING_TRAFFIC);
			assertThat(node.status().drained()).as("the context's own refusal, as when it closes").isFalse();

			Object maintenance = new Object();
			AvailabilityChangeEvent.publish(context, maintenance, ReadinessState.REFUSING_TRAFFIC);
			assertThat(node.status().drained()).isTrue();
			await().atMost(Duration.ofSeconds(2)).until(() -> !node.isLeader("default"));

			AvailabilityChangeEvent.publish(context, maintenance, ReadinessState.ACCEPTING_TRAFFIC);
			assertThat(node.status().drained()).isFalse();
			await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("default"));
		});
	}

	@Test
	void followReadinessFalseLeavesTheNodeAlone() {
		this.runner.withPropertyValues("membership.follow-readiness=false").run((context) -> {
			assertThat(context).doesNotHaveBean(MembershipReadinessDrain.class);
			AvailabilityChangeEvent.publish(context, new Object(), ReadinessState.REFUSING_TRAFFIC);
			assertThat(context.getBean(Membership.class).status().drained()).isFalse();
		});
	}

}
