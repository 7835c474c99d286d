package dev.membership.test.thirdstore;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

import dev.membership.Membership;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.NoMembershipStoreException;
import dev.membership.InvalidMembershipSettingsException;
import dev.membership.test.InMemoryMembershipStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A store module the starter has never heard of, registered the way the real ones are: a
 * node starts on it and leads, its properties are known, {@code membership.store} chooses
 * it, and with no store module at all the start fails naming the modules to add. Neither
 * MongoDB nor JDBC is on this module's classpath.
 */
class ThirdStoreModuleTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(InMemoryStoreModule.class, MembershipAutoConfiguration.class,
				LeaderOnlyAutoConfiguration.class))
		.withPropertyValues("membership.advertised-address=127.0.0.1:8080", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void aNodeStartsAndLeadsOnAStoreModuleTheStarterDoesNotName() {
		assertThat(ClassUtils.isPresent("com.mongodb.client.MongoClient", null)).isFalse();
		assertThat(ClassUtils.isPresent("dev.membership.jdbc.JdbcMembershipStore", null)).isFalse();
		this.runner.withPropertyValues("membership.memory.label=test").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(dev.membership.spi.MembershipStore.class))
				.isInstanceOf(InMemoryMembershipStore.class);
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
		});
	}

	@Test
	void membershipStoreChoosesItByName() {
		this.runner.withPropertyValues("membership.store=memory")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(Membership.class));
	}

	@Test
	void aTypoInTheModulesPropertiesFailsTheStartNamingTheNearest() {
		this.runner.withPropertyValues("membership.memory.labl=test")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidMembershipSettingsException.class)
				.hasMessageContaining("memory.labl")
				.hasMessageContaining("membership.memory.label"));
	}

	@Test
	void aStoreNoModuleOffersFailsTheStartNamingTheOnesThere() {
		this.runner.withPropertyValues("membership.store=mongodb")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(NoMembershipStoreException.class)
				.hasMessageContaining("membership.store=mongodb names no store module")
				.hasMessageContaining("memory (com.example:membership-memory)"));
	}

	@Test
	void withNoStoreModuleAtAllTheStartFailsSayingSo() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MembershipAutoConfiguration.class))
			.withPropertyValues("membership.advertised-address=127.0.0.1:8080")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(NoMembershipStoreException.class)
				.hasMessageContaining("no store module is on the classpath"));
	}

}
