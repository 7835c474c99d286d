package dev.membership.architecture;

import java.util.List;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The rules of the house as CONTRIBUTING states them, each an ArchUnit rule: checked on
 * every published module's classes ({@link HouseRulesTests}) and shown to fail on a
 * deliberate breach ({@link HouseRulesCanFailTests}).
 */
final class HouseRules {

	/**
	 * The engine's way in: the node and its builder, and the guard the Spring side uses.
	 */
	static final DescribedPredicate<JavaClass> ENGINE_WAY_IN = DescribedPredicate.describe(
			"the engine's way in (MembershipNode, MembershipNodeBuilder, Guarded)",
			(c) -> c.getName().startsWith("dev.membership.engine.MembershipNode")
					|| c.getName().equals("dev.membership.engine.guard.Guarded")
					|| c.getName().startsWith("dev.membership.engine.guard.Guarded$"));

	static final DescribedPredicate<JavaClass> IN_THE_ENGINE = DescribedPredicate
		.describe("in the engine (dev.membership.engine..)", (c) -> c.getPackageName().equals("dev.membership.engine")
				|| c.getPackageName().startsWith("dev.membership.engine."));

	/**
	 * Each package of the project a slice of its own, the root package
	 * {@code dev.membership} too ({@code matching("dev.membership.(**)")} would leave the
	 * root out).
	 */
	static final SliceAssignment BY_PACKAGE = new SliceAssignment() {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass type) {
			String name = type.getPackageName();
			return (name.equals("dev.membership") || name.startsWith("dev.membership.")) ? SliceIdentifier.of(name)
					: SliceIdentifier.ignore();
		}

		@Override
		public String getDescription() {
			return "the packages of dev.membership, the root package among them";
		}

	};

	static final ArchRule NO_PACKAGE_CYCLES = slices().assignedFrom(BY_PACKAGE)
		.should()
		.beFreeOfCycles()
		.because("two packages that import each other are two rooms that cannot be read apart");

	static final ArchRule ENGINE_ONLY_THROUGH_ITS_WAY_IN = noClasses().that()
		.resideOutsideOfPackage("dev.membership.engine..")
		.should()
		.dependOnClassesThat(IN_THE_ENGINE.and(DescribedPredicate.not(ENGINE_WAY_IN)))
		.because("the engine's rooms are public to each other only: everything else reaches the engine through "
				+ "MembershipNode and its builder");

	static final ArchRule STORES_NEVER_USE_THE_ENGINE = noClasses().that()
		.resideInAnyPackage("dev.membership.mongo..", "dev.membership.jdbc..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("dev.membership.engine..", "dev.membership.actuate..", "dev.membership.scheduling..")
		.because("a store implements the SPI over the API, so that another store can be written the same way");

	static final ArchRule STORES_MEET_SPRING_ONLY_IN_THEIR_AUTO_CONFIGURATION = noClasses().that()
		.resideInAnyPackage("dev.membership.mongo", "dev.membership.jdbc")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("dev.membership.autoconfigure..")
		.because("a store's classes work without Spring Boot; its auto-configuration wires them");

	static final ArchRule SPI_IMPORTS_NO_IMPLEMENTATION = noClasses().that()
		.resideInAPackage("dev.membership.spi..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("dev.membership.engine..", "dev.membership.autoconfigure..", "dev.membership.actuate..",
				"dev.membership.mongo..", "dev.membership.jdbc..", "dev.membership.test..")
		.because("the SPI is what a store or a runtime implements: it names nothing that implements it");

	static final ArchRule API_IMPORTS_NO_IMPLEMENTATION = noClasses().that()
		.resideInAnyPackage("dev.membership", "dev.membership.event..", "dev.membership.leadership..",
				"dev.membership.liveness..", "dev.membership.operations..")
		.should()
		.dependOnClassesThat()
		.resideInAnyPackage("dev.membership.engine..", "dev.membership.spi..", "dev.membership.autoconfigure..",
				"dev.membership.mongo..", "dev.membership.jdbc..")
		.because("what applications use stands on its own");

	static final ArchRule CASE_ONLY_WITH_A_LOCALE = noClasses().should()
		.callMethod(String.class, "toLowerCase")
		.orShould()
		.callMethod(String.class, "toUpperCase")
		.because("without a Locale the default one decides: under a Turkish default 'ACQUIRED' becomes 'acquıred' "
				+ "(use Locale.ROOT)");

	static final ArchRule AUTO_CONFIGURATIONS_FINAL = classes().that()
		.areAnnotatedWith(AutoConfiguration.class)
		.should()
		.haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL)
		.because("an auto-configuration is not a base class: users replace its beans, not extend it");

	static final List<ArchRule> ALL = List.of(NO_PACKAGE_CYCLES, ENGINE_ONLY_THROUGH_ITS_WAY_IN,
			STORES_NEVER_USE_THE_ENGINE, STORES_MEET_SPRING_ONLY_IN_THEIR_AUTO_CONFIGURATION,
			SPI_IMPORTS_NO_IMPLEMENTATION, API_IMPORTS_NO_IMPLEMENTATION, CASE_ONLY_WITH_A_LOCALE,
			AUTO_CONFIGURATIONS_FINAL);

	private HouseRules() {
	}

}
