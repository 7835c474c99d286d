package dev.membership.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.function.SingletonSupplier;

import dev.membership.Membership;
import dev.membership.actuate.MembershipMeters;

/**
 * Micrometer meters for leadership, liveness, {@code @LeaderOnly} calls and store calls.
 */
@AutoConfiguration(after = MembershipAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ Membership.class, MeterRegistry.class })
public final class MembershipMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MembershipMeters membershipMeters(MeterRegistry registry, ObjectProvider<Membership> membership) {
		return new MembershipMeters(registry, SingletonSupplier.of(membership::getIfAvailable));
	}

	@Bean
	MembershipStoreDecorator membershipStoreTimer(MembershipMeters meters) {
		return meters::timed;
	}

}
