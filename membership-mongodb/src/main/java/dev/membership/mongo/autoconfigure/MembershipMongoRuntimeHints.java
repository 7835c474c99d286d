package dev.membership.mongo.autoconfigure;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * The properties class that startup introspects to name an unknown
 * {@code membership.mongo.*} property.
 */
class MembershipMongoRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		BindableRuntimeHintsRegistrar.forTypes(MembershipMongoProperties.class).registerHints(hints, classLoader);
	}

}
