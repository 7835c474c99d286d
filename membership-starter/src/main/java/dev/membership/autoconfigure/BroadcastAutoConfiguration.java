package dev.membership.autoconfigure;

import java.util.List;

import jakarta.servlet.http.HttpServlet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.MongoDatabaseFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.MembershipNode;
import dev.membership.MembershipSettings;
import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.BroadcastMetrics;
import dev.membership.broadcast.BroadcastReceiver;
import dev.membership.broadcast.BroadcastServlet;
import dev.membership.broadcast.BroadcastSettings;
import dev.membership.broadcast.ClusterBroadcaster;
import dev.membership.broadcast.LeadershipNotices;
import dev.membership.store.mongo.MongoBroadcastKeys;

/**
 * Direct, signed broadcasts between live members, received on the application's servlet web server. Off, with a log
 * line, in applications without one.
 */
@AutoConfiguration(after = { MembershipAutoConfiguration.class, MembershipMetricsAutoConfiguration.class },
		afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class BroadcastAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ JsonMapper.class, RestClient.class, HttpServlet.class })
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnBooleanProperty(name = "membership.broadcast.enabled", matchIfMissing = true)
	static class ServletBroadcastConfiguration {

		@Bean
		@ConditionalOnMissingBean
		BroadcastSettings broadcastSettings(MembershipProperties properties) {
			return MembershipSettingsFactory.broadcastSettings(properties.getBroadcast());
		}

		@Bean
		@ConditionalOnMissingBean
		BroadcastKeySource broadcastKeySource(MembershipProperties properties, MembershipSettings settings,
				ConfigurableListableBeanFactory beans) {
			if (!properties.getBroadcast().getKeys().isEmpty()) {
				BroadcastKeyring keyring = BroadcastKeyring.ofStrings(properties.getBroadcast().getKeys());
				return () -> keyring;
			}
			// looked up by name: an application with its own store may have no MongoDB classes at all
			if (ClassUtils.isPresent(MONGO_DATABASE_FACTORY, beans.getBeanClassLoader())) {
				BroadcastKeySource keys = MongoKeys.from(beans, properties, settings);
				if (keys != null) {
					return keys;
				}
			}
			throw new InvalidMembershipSettingsException(List.of(new Violation(List.of("broadcast.keys"),
					"no key is configured and there is no blocking MongoDB (MongoDatabaseFactory) to keep a generated "
							+ "one in: set membership.broadcast.keys (the same keys on every node, 32 bytes or more "
							+ "each), or membership.broadcast.enabled=false")));
		}

		@Bean
		@ConditionalOnMissingBean
		ClusterBroadcaster clusterBroadcaster(MembershipNode node, BroadcastKeySource keys,
				ObjectProvider<JsonMapper> mapper, BroadcastSettings settings, ObjectProvider<BroadcastMetrics> metrics,
				ApplicationEventPublisher publisher) {
			return new ClusterBroadcaster(node, keys, mapper.getIfAvailable(JsonMapper::new), settings,
					metrics.getIfAvailable(BroadcastMetrics::none), publisher::publishEvent);
		}

		@Bean
		@ConditionalOnMissingBean
		LeadershipNotices leadershipNotices(MembershipNode node, ClusterBroadcaster broadcaster) {
			return new LeadershipNotices(node, broadcaster);
		}

		@Bean
		@ConditionalOnMissingBean
		BroadcastReceiver broadcastReceiver(BroadcastKeySource keys, ObjectProvider<JsonMapper> mapper,
				BroadcastSettings settings, MembershipNode node, LeadershipNotices notices,
				ApplicationEventPublisher publisher, ObjectProvider<BroadcastMetrics> metrics) {
			return new BroadcastReceiver(keys, mapper.getIfAvailable(JsonMapper::new), settings,
					node::serverTimeEstimate, (event) -> {
						if (LeadershipNotices.isInternal(event.topic())) {
							notices.apply(event);
						}
						else {
							publisher.publishEvent(event);
						}
					}, metrics.getIfAvailable(BroadcastMetrics::none));
		}

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
	@Conditional(NotAServletWebApplication.class)
	static class BroadcastOffConfiguration {

		private static final Logger log = LoggerFactory.getLogger(BroadcastAutoConfiguration.class);

		BroadcastOffConfiguration() {
			log.info("Cluster broadcast is off: this application runs no servlet web server to receive it on");
		}

	}

	private static final String MONGO_DATABASE_FACTORY = "org.springframework.data.mongodb.MongoDatabaseFactory";

	/** The generated key kept in MongoDB; loaded only when MongoDB is on the classpath. */
	private static final class MongoKeys {

		static BroadcastKeySource from(ListableBeanFactory beans, MembershipProperties properties,
				MembershipSettings settings) {
			MongoDatabaseFactory factory = beans.getBeanProvider(MongoDatabaseFactory.class).getIfAvailable();
			if (factory == null) {
				return null;
			}
			return new MongoBroadcastKeys(factory.getMongoDatabase(), properties.getMongo().getKeysCollection(),
					MongoStoreSettingsFactory.storeSettings(properties, settings).operationTimeout());
		}

	}

	static class NotAServletWebApplication extends NoneNestedConditions {

		NotAServletWebApplication() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
		static class Servlet {

		}

	}

}
