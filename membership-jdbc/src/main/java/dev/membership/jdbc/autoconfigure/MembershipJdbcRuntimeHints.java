package dev.membership.jdbc.autoconfigure;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.RosterChange;

/**
 * What a native image needs for the PostgreSQL store: the roster row keeps its members,
 * recent changes and placements as JSON, written and read by Jackson through these
 * records' constructors and accessors; and the properties class.
 */
class MembershipJdbcRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), Member.class,
				RosterChange.class, GroupAssignment.class, PlacementChange.class);
		// startup introspects it to name an unknown membership.jdbc.* property
		BindableRuntimeHintsRegistrar.forTypes(MembershipJdbcProperties.class).registerHints(hints, classLoader);
	}

}
