package dev.membership.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import dev.membership.actuate.RunObservationConvention;
import dev.membership.actuate.RunObservations;

/**
 * Every run of guarded work as a Micrometer observation ({@code membership.run}): a
 * timer, and a span where tracing is on, nested in Spring's scheduled-task observation
 * when {@code @Scheduled} started it.
 */
@AutoConfiguration(
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public final class MembershipObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RunObservations membershipRunObservations(ObservationRegistry registry,
			ObjectProvider<RunObservationConvention> convention) {
		return new RunObservations(registry, convention.getIfAvailable());
	}

}
