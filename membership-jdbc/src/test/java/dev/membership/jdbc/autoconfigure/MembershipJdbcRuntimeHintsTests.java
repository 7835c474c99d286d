package dev.membership.jdbc.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.RosterChange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The roster's JSON types are bound by reflection in a native image too; see
 * {@code MembershipJdbcRuntimeHints}.
 */
class MembershipJdbcRuntimeHintsTests {

	@Test
	void theRosterRowsJsonRecordsCanBeWrittenAndRead() throws Exception {
		RuntimeHints hints = new RuntimeHints();
		new MembershipJdbcRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (Class<?> type : new Class<?>[] { Member.class, RosterChange.class, GroupAssignment.class,
				PlacementChange.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onType(type)).as(type.getName()).accepts(hints);
			assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(type.getDeclaredConstructors()[0]))
				.as("%s's constructor", type.getName())
				.accepts(hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(PlacementChange.class.getMethod("moved")))
			.accepts(hints);
	}

}
