package dev.membership.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import dev.membership.actuate.ClusterDescriptor;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.MembershipStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image needs beyond what Spring infers; see
 * {@code MembershipRuntimeHints}.
 */
class MembershipRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void theMetersProxyOfTheStoreAndThePropertiesStartupIntrospects() throws Exception {
		new MembershipRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(MembershipStore.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(MembershipProperties.class.getMethod("getLeaseDuration"))).accepts(this.hints);
		assertThat(
				RuntimeHintsPredicates.reflection().onMethodInvocation(BroadcastProperties.class.getMethod("getKeys")))
			.accepts(this.hints);
	}

	@Test
	void leaderOnlyMethodsAndTheClusterEndpointsJson() throws Exception {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(this.hints, Jobs.class,
				MembershipActuatorAutoConfiguration.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Jobs.class.getDeclaredMethod("nightly")))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ClusterDescriptor.MemberDescriptor.class))
			.accepts(this.hints);
	}

	static class Jobs {

		@LeaderOnly
		void nightly() {
		}

	}

}
