package dev.membership.autoconfigure;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import dev.membership.spi.MembershipStore;

/**
 * What ahead-of-time processing cannot infer from the starter's beans: the JDK proxy
 * through which the meters time every store call, and the properties class that startup
 * introspects to name an unknown {@code membership.*} property. (The JSON of
 * {@code /actuator/cluster} is registered with its configuration, {@code @LeaderOnly}
 * methods through {@code @Reflective}; broadcast messages are JSON trees, so only an
 * application's own payload types need hints.)
 */
class MembershipRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.proxies().registerJdkProxy(MembershipStore.class);
		BindableRuntimeHintsRegistrar.forTypes(MembershipProperties.class).registerHints(hints, classLoader);
	}

}
