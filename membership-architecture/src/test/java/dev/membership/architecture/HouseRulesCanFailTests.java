package dev.membership.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each of the {@link HouseRules} fails on a deliberate breach (the classes under
 * {@code breach} packages of this module's tests), so that a rule that passes is one that
 * could have failed.
 */
class HouseRulesCanFailTests {

	@Test
	void aPackageCycleFails() {
		assertBreaks(HouseRules.NO_PACKAGE_CYCLES, "dev.membership.architecture.breach.cycle");
	}

	@Test
	void aPackageCycleThroughTheRootPackageFails() {
		assertBreaks(HouseRules.NO_PACKAGE_CYCLES, "dev.membership.BreachAtTheRoot",
				"dev.membership.architecture.breach.root.BelowTheRoot");
	}

	@Test
	void aClassOutsideTheEngineUsingOneOfItsRoomsFails() {
		assertBreaks(HouseRules.ENGINE_ONLY_THROUGH_ITS_WAY_IN,
				"dev.membership.architecture.breach.ReachesIntoTheEngine");
	}

	@Test
	void aStoreUsingTheEngineFails() {
		assertBreaks(HouseRules.STORES_NEVER_USE_THE_ENGINE, "dev.membership.mongo.breach.StoreUsesTheEngine");
	}

	@Test
	void aStoreClassUsingTheAutoConfigurationFails() {
		assertBreaks(HouseRules.STORES_MEET_SPRING_ONLY_IN_THEIR_AUTO_CONFIGURATION,
				"dev.membership.mongo.BreachStoreUsesAutoConfiguration");
	}

	@Test
	void theSpiNamingTheEngineFails() {
		assertBreaks(HouseRules.SPI_IMPORTS_NO_IMPLEMENTATION, "dev.membership.spi.breach.SpiNamesTheEngine");
	}

	@Test
	void theApiNamingTheSpiFails() {
		assertBreaks(HouseRules.API_IMPORTS_NO_IMPLEMENTATION, "dev.membership.leadership.breach.ApiNamesTheSpi");
	}

	@Test
	void aCaseChangeWithoutALocaleFails() {
		assertBreaks(HouseRules.CASE_ONLY_WITH_A_LOCALE,
				"dev.membership.architecture.breach.ChangesCaseWithoutALocale");
	}

	@Test
	void anOpenAutoConfigurationFails() {
		assertBreaks(HouseRules.AUTO_CONFIGURATIONS_FINAL, "dev.membership.architecture.breach.OpenAutoConfiguration");
	}

	private static void assertBreaks(ArchRule rule, String... breach) {
		JavaClasses classes = new ClassFileImporter().importPackages(breach);
		if (classes.isEmpty()) {
			classes = new ClassFileImporter()
				.importClasses(java.util.Arrays.stream(breach).map(HouseRulesCanFailTests::load).toList());
		}
		assertThat(classes).as("the breach %s", String.join(", ", breach)).isNotEmpty();
		assertThat(rule.evaluate(classes).hasViolation())
			.as("%s breaks: %s", String.join(", ", breach), rule.getDescription())
			.isTrue();
	}

	private static Class<?> load(String name) {
		try {
			return Class.forName(name);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
