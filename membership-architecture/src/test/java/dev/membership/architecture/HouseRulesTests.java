package dev.membership.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every published module's classes keep the {@link HouseRules}; a rule that fails names
 * the classes and the dependency that break it.
 */
class HouseRulesTests {

	static final JavaClasses PUBLISHED = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("dev.membership");

	static final java.util.List<ArchRule> rules = HouseRules.ALL;

	@Test
	void readsEveryPublishedModule() {
		assertThat(PUBLISHED.contain("dev.membership.engine.MembershipNode")).isTrue();
		assertThat(PUBLISHED.contain("dev.membership.engine.lease.Campaign")).isTrue();
		assertThat(PUBLISHED.contain("dev.membership.mongo.DocumentsStore")).isTrue();
		assertThat(PUBLISHED.contain("dev.membership.jdbc.JdbcMembershipStore")).isTrue();
		assertThat(PUBLISHED.contain("dev.membership.test.InMemoryMembershipStore")).isTrue();
		assertThat(PUBLISHED.stream()
			.filter((c) -> c.getSource().map((s) -> s.getUri().toString().contains("test-classes")).orElse(false)))
			.isEmpty();
	}

	@ParameterizedTest
	@FieldSource("rules")
	void isKept(ArchRule rule) {
		rule.check(PUBLISHED);
	}

}
