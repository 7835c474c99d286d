package dev.membership.test.thirdstore;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipProperties;
import dev.membership.autoconfigure.MembershipStoreOffer;
import dev.membership.autoconfigure.MembershipStores;
import dev.membership.spi.MembershipStore;
import dev.membership.test.InMemoryMembershipStore;

/**
 * A third store module, as one would be written outside this repository: the test kit's
 * in-memory store, offered and made the way membership-mongodb and membership-jdbc make
 * theirs, with properties of its own ({@code membership.memory.*}). Nothing in the
 * starter names it.
 */
@AutoConfiguration(before = MembershipAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ MembershipProperties.class, InMemoryStoreModule.MemoryProperties.class })
public final class InMemoryStoreModule {

	@Bean
	MembershipStoreOffer membershipMemoryStoreOffer() {
		return MembershipStoreOffer.ready("memory", "com.example:membership-memory", MemoryProperties.class);
	}

	@Bean
	@ConditionalOnProperty(name = "membership.store", havingValue = "memory", matchIfMissing = true)
	@ConditionalOnMissingBean(MembershipStore.class)
	MembershipStore membershipStore(MembershipProperties properties, ListableBeanFactory beans) {
		MembershipStores.check(beans, properties.getStore());
		return new InMemoryMembershipStore();
	}

	/**
	 * The module's own properties: their names are known, a typo among them fails the
	 * start.
	 */
	@ConfigurationProperties(prefix = "membership.memory")
	public static class MemoryProperties {

		/** A made-up setting. */
		private String label = "local";

		public String getLabel() {
			return this.label;
		}

		public void setLabel(String label) {
			this.label = label;
		}

	}

}
