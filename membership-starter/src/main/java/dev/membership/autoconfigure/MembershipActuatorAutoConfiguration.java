package dev.membership.autoconfigure;

import java.time.Duration;

import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.membership.Membership;
import dev.membership.actuate.CallerAddressWebFilter;
import dev.membership.actuate.ClusterDescriptor;
import dev.membership.actuate.ClusterEndpoint;
import dev.membership.actuate.ClusterWebEndpointExtension;
import dev.membership.actuate.MembershipHealthIndicator;
import dev.membership.actuate.MembershipInfoContributor;
import dev.membership.actuate.ReactiveClusterWebEndpointExtension;
import dev.membership.actuate.RunHistoryDescriptor;
import dev.membership.operations.ClusterOperations;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.RunHistoryStore;

/**
 * {@code /actuator/cluster}, the {@code membership} health contributor and the info
 * contributor.
 */
@AutoConfiguration(after = MembershipAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Membership.class)
@RegisterReflectionForBinding({ ClusterDescriptor.class, ClusterDescriptor.ScheduledJob.class,
		ClusterDescriptor.Resignation.class, ClusterDescriptor.Refusal.class, ClusterDescriptor.Drain.class,
		ClusterDescriptor.HandOver.class, ClusterDescriptor.Move.class, ClusterDescriptor.Pause.class,
		RunHistoryDescriptor.class, RunHistoryDescriptor.Run.class })
public final class MembershipActuatorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	ClusterEndpoint clusterEndpoint(Membership membership, ObjectProvider<ClusterOperations> operations,
			ObjectProvider<RunHistoryStore> history, ObjectProvider<MembershipProperties> properties) {
		boolean enabled = properties.getIfAvailable(MembershipProperties::new).getHistory().isEnabled();
		return new ClusterEndpoint(membership, operations.getIfAvailable(), enabled ? history.getIfAvailable() : null);
	}

	@Bean
	@ConditionalOnBean(ClusterEndpoint.class)
	@ConditionalOnAvailableEndpoint(endpoint = ClusterEndpoint.class, exposure = EndpointExposure.WEB)
	ClusterEndpointAccessLog clusterEndpointAccessLog(ObjectProvider<EndpointAccessResolver> access) {
		return new ClusterEndpointAccessLog(access.getIfAvailable());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(ClusterEndpoint.class)
	@ConditionalOnAvailableEndpoint(endpoint = ClusterEndpoint.class, exposure = EndpointExposure.WEB)
	@ConditionalOnWebApplication(type = Type.SERVLET)
	ClusterWebEndpointExtension clusterWebEndpointExtension(ClusterEndpoint endpoint) {
		return new ClusterWebEndpointExtension(endpoint);
	}

	/**
	 * A reactive application: the caller's address travels in the request's Reactor
	 * context. (A nested class is read before this class's beans: no condition on the
	 * endpoint bean here.)
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = Type.REACTIVE)
	@ConditionalOnAvailableEndpoint(endpoint = ClusterEndpoint.class, exposure = EndpointExposure.WEB)
	static class ReactiveClusterEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveClusterWebEndpointExtension reactiveClusterWebEndpointExtension(ClusterEndpoint endpoint) {
			return new ReactiveClusterWebEndpointExtension(endpoint);
		}

		@Bean
		@ConditionalOnMissingBean
		CallerAddressWebFilter membershipCallerAddressWebFilter() {
			return new CallerAddressWebFilter();
		}

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
