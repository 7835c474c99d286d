package dev.membership.autoconfigure;

import java.util.List;

import jakarta.servlet.http.HttpServlet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnNotWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.engine.MembershipNode;
import dev.membership.spi.MembershipStore;
import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.BroadcastMetrics;
import dev.membership.broadcast.BroadcastReceiver;
import dev.membership.broadcast.BroadcastServlet;
import dev.membership.broadcast.BroadcastSettings;
import dev.membership.broadcast.ClusterBroadcaster;
import dev.membership.broadcast.LeadershipNotices;
import dev.membership.broadcast.OperatorRelay;
import dev.membership.operations.ClusterOperations;
import dev.membership.broadcast.ReactiveBroadcastHandler;

/**
 * Direct, signed broadcasts between live members, received on the application's web
 * server: a servlet on a servlet one, a route on a reactive (WebFlux) one; the same
 * receiver, wire format, limits and answers on both. Off, with a log line, in
 * applications without a web server.
 */
@AutoConfiguration(after = { MembershipAutoConfiguration.class, MembershipMetricsAutoConfiguration.class },
		afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public final class BroadcastAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ JsonMapper.class, RestClient.class })
	@ConditionalOnWebApplication
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnBooleanProperty(name = "membership.broadcast.enabled", matchIfMissing = true)
	static class WebBroadcastConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BroadcastSettings broadcastSettings(MembershipProperties properties) {
			return MembershipSettingsFactory.broadcastSettings(properties.getBroadcast());
		}

		@Bean
		@ConditionalOnMissingBean
		BroadcastKeySource broadcastKeySource(MembershipProperties properties, BroadcastSettings broadcastSettings,
				ObjectProvider<StoreBroadcastKeys> stored, ListableBeanFactory beans) {
			// a web server's start asks for the key before the node is made: a missing
			// store module is what to fix first, not the key it would have kept
			if (beans.getBeanNamesForType(MembershipStore.class, true, false).length == 0) {
				throw new NoMembershipStoreException(MembershipStores.offers(beans), properties.getStore());
			}
			// broadcastSettings first: its checks name every bad property (a short key
			// too) before a key is parsed
			if (!properties.getBroadcast().getKeys().isEmpty()) {
				BroadcastKeyring keyring = BroadcastKeyring.ofStrings(properties.getBroadcast().getKeys());
				return BroadcastKeySource.of(keyring);
			}
			// chosen here, as the application starts: an ahead-of-time image built
			// without keys may be given some
			StoreBroadcastKeys kept = stored.getIfUnique();
			if (kept != null) {
				return kept.keys();
			}
			throw new InvalidMembershipSettingsException(List.of(new Violation(List.of("broadcast.keys"),
					"no key is configured and the store keeps none (a store module keeps a generated one in its "
							+ "database; a MembershipStore of your own does not): set membership.broadcast.keys (the "
							+ "same keys on every node, 32 bytes or more each), define a BroadcastKeySource bean, or "
							+ "set membership.broadcast.enabled=false")));
		}

		@Bean
		@ConditionalOnMissingBean
		ClusterBroadcaster clusterBroadcaster(MembershipNode node, BroadcastKeySource keys,
				ObjectProvider<JsonMapper> mapper, BroadcastSettings settings, ObjectProvider<BroadcastMetrics> metrics,
				ApplicationEventPublisher publisher) {
			return new ClusterBroadcaster(node, keys, mapper.getIfAvailable(JsonMapper::new), settings,
					GuardedBeans.broadcast(metrics.orderedStream().toList()), publisher::publishEvent);
		}

		@Bean
		@ConditionalOnMissingBean
		LeadershipNotices leadershipNotices(MembershipNode node, ClusterBroadcaster broadcaster) {
			return new LeadershipNotices(node, broadcaster);
		}

		/**
		 * The operators' commands of this node, each carried to the node that acts on it:
		 * an operator may send any command to any node.
		 */
		@Bean
		@ConditionalOnMissingBean(ClusterOperations.class)
		OperatorRelay clusterOperations(MembershipNode node, ClusterBroadcaster broadcaster,
				BroadcastSettings settings) {
			return new OperatorRelay(node, node.operations(), broadcaster, settings);
		}

		@Bean
		@ConditionalOnMissingBean
		BroadcastReceiver broadcastReceiver(BroadcastKeySource keys, ObjectProvider<JsonMapper> mapper,
				BroadcastSettings settings, MembershipNode node, LeadershipNotices notices,
				ApplicationEventPublisher publisher, ObjectProvider<BroadcastMetrics> metrics,
				ObjectProvider<OperatorRelay> relay) {
			OperatorRelay commands = relay.getIfAvailable();
			return new BroadcastReceiver(node.nodeId(), keys, mapper.getIfAvailable(JsonMapper::new), settings,
					node::serverTimeEstimate, (event) -> {
						if (LeadershipNotices.isInternal(event.topic())) {
							notices.apply(event);
						}
						else {
							publisher.publishEvent(event);
						}
					}, GuardedBeans.broadcast(metrics.orderedStream().toList()),
					(commands != null) ? commands::answer : null);
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(HttpServlet.class)
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
		static class ServletReceiverConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = "membershipBroadcastServlet")
			ServletRegistrationBean<BroadcastServlet> membershipBroadcastServlet(BroadcastReceiver receiver,
					BroadcastSettings settings) {
				ServletRegistrationBean<BroadcastServlet> registration = new ServletRegistrationBean<>(
						new BroadcastServlet(receiver), settings.path());
				registration.setName("membershipBroadcast");
				return registration;
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = { "org.springframework.web.reactive.function.server.RouterFunction",
				"reactor.core.publisher.Mono" })
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		static class ReactiveReceiverConfiguration {

			@Bean
			@ConditionalOnMissingBean(name = "membershipBroadcastRoute")
			RouterFunction<ServerResponse> membershipBroadcastRoute(BroadcastReceiver receiver,
					BroadcastSettings settings) {
				return new ReactiveBroadcastHandler(receiver, settings).route(settings.path());
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnNotWebApplication
	static class BroadcastOffConfiguration {

		private static final Logger log = LoggerFactory.getLogger(BroadcastAutoConfiguration.class);

		BroadcastOffConfiguration() {
			log.info("Cluster broadcast is off: this application runs no web server to receive it on");
		}

	}

}
