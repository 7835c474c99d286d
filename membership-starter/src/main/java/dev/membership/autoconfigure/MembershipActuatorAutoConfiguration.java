package dev.membership.autoconfigure;

import java.time.Duration;

import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.membership.Membership;
import dev.membership.spi.RunHistoryStore;
import dev.membership.engine.MembershipSettings;
import dev.membership.actuate.ClusterDescriptor;
import dev.membership.actuate.ClusterEndpoint;
import dev.membership.actuate.RunHistoryDescriptor;
import dev.membership.actuate.ClusterWebEndpointExtension;
import dev.membership.actuate.MembershipHealthIndicator;
import dev.membership.actuate.MembershipInfoContributor;

/** {@code /actuator/cluster}, the {@code membership} health contributor and the info contributor. */
@AutoConfiguration(after = MembershipAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Membership.class)
@RegisterReflectionForBinding({ ClusterDescriptor.class, ClusterDescriptor.Resignation.class,
		ClusterDescriptor.Refusal.class, ClusterDescriptor.Drain.class, ClusterDescriptor.HandOver.class,
		ClusterDescriptor.Move.class, ClusterDescriptor.Pause.class,
		RunHistoryDescriptor.class, RunHistoryDescriptor.Run.class })
public class MembershipActuatorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	ClusterEndpoint clusterEndpoint(Membership membership, ObjectProvider<RunHistoryStore> history,
			ObjectProvider<MembershipProperties> properties) {
		boolean enabled = properties.getIfAvailable(MembershipProperties::new).getHistory().isEnabled();
		return new ClusterEndpoint(membership, enabled ? history.getIfAvailable() : null);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ClusterEndpoint.class)
	@ConditionalOnAvailableEndpoint(endpoint = ClusterEndpoint.class, exposure = EndpointExposure.WEB)
	ClusterWebEndpointExtension clusterWebEndpointExtension(ClusterEndpoint endpoint) {
		return new ClusterWebEndpointExtension(endpoint);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnEnabledInfoContributor("membership")
	MembershipInfoContributor membershipInfoContributor(Membership membership) {
		return new MembershipInfoContributor(membership);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("membership")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "membershipHealthIndicator")
		MembershipHealthIndicator membershipHealthIndicator(Membership membership,
				ObjectProvider<MembershipSettings> settings) {
			Duration window = settings.getIfAvailable(() -> MembershipSettings.builder("unused").build())
				.livenessWindow();
			return new MembershipHealthIndicator(membership, window);
		}

	}

}
