package dev.membership.autoconfigure;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import dev.membership.spi.MembershipStore;
import dev.membership.operations.Drain;
import dev.membership.operations.DrainResult;
import dev.membership.operations.HandOver;
import dev.membership.operations.HandOverResult;
import dev.membership.operations.Move;
import dev.membership.operations.Pause;
import dev.membership.operations.PauseResult;
import dev.membership.operations.Pin;
import dev.membership.operations.PlacementResult;
import dev.membership.operations.Release;
import dev.membership.operations.Resign;
import dev.membership.operations.ResignResult;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.operations.Unpin;

/**
 * What ahead-of-time processing cannot infer from the starter's beans: the JDK proxy
 * through which the meters time every store call, and the properties class that startup
 * introspects to name an unknown {@code membership.*} property. (The JSON of
 * {@code /actuator/cluster} is registered with its configuration, {@code @LeaderOnly}
 * methods through {@code @Reflective}; broadcast messages are JSON trees, so only an
 * application's own payload types need hints.) And the operators' requests and results,
 * which a command carried to another node is written as and read from.
 */
class MembershipRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.proxies().registerJdkProxy(MembershipStore.class);
		BindableRuntimeHintsRegistrar.forTypes(MembershipProperties.class).registerHints(hints, classLoader);
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), Resign.class, Release.class,
				Drain.class, Undrain.class, HandOver.class, Move.class, Pin.class, Unpin.class, Pause.class,
				Resume.class, ResignResult.class, DrainResult.class, HandOverResult.class, PlacementResult.class,
				PauseResult.class);
	}

}
