package dev.membership.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.data.mongodb.MongoDatabaseFactory;
import org.springframework.data.mongodb.ReactiveMongoDatabaseFactory;

import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeadershipObserver;
import dev.membership.Membership;
import dev.membership.MembershipEventListener;
import dev.membership.engine.MembershipNode;
import dev.membership.engine.MembershipNodeBuilder;
import dev.membership.engine.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunObserver;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.operations.ClusterOperations;
import dev.membership.mongo.MongoRunHistory;
import dev.membership.mongo.ReactiveMongoMembershipStore;
import dev.membership.mongo.ReactiveMongoRunHistory;

/**
 * Joins the cluster through the application's own MongoDB (its {@link MongoDatabaseFactory}; no second connection
 * pool). Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration",
		"org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration",
		"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@EnableConfigurationProperties(MembershipProperties.class)
@ImportRuntimeHints(MembershipRuntimeHints.class)
public class MembershipAutoConfiguration {

	/**
	 * The {@code SmartLifecycle} phase in which the node joins and leaves: after the web server starts
	 * ({@code DEFAULT_PHASE - 2048}, its port is part of the advertised address), before its graceful shutdown
	 * ({@code DEFAULT_PHASE - 1024}), so that a graceful stop hands over while the others can still be told.
	 */
	public static final int LIFECYCLE_PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	@Bean
	@ConditionalOnMissingBean
	MembershipSettings membershipSettings(MembershipProperties properties, Environment environment) {
		return MembershipSettingsFactory.settings(properties, environment);
	}

	@Bean
	@ConditionalOnMissingBean(Membership.class)
	MembershipNode membershipNode(MembershipSettings settings, ObjectProvider<MembershipStore> stores,
			ApplicationEventPublisher publisher, MembershipProperties properties, Environment environment,
			ObjectProvider<LeadershipObserver> observer, ObjectProvider<ElectionMetrics> metrics,
			ObjectProvider<MembershipStoreDecorator> decorators, ObjectProvider<MembershipEventListener> reactions,
			ObjectProvider<NoticeChannel> noticeChannels, ObjectProvider<RunObserver> runObservers,
			ObjectProvider<RunHistoryStore> runHistory,
			ObjectProvider<MembershipNodeCustomizer> customizers, ConfigurableListableBeanFactory beanFactory) {
		// never a silent no-op: without a store the application would start and leader-only work would never run
		MembershipStore store = stores.getIfAvailable(() -> {
			throw new NoMembershipStoreException(beanFactory.getBeanClassLoader(), properties.getStore());
		});
		MembershipStore decorated = store;
		for (MembershipStoreDecorator decorator : decorators.orderedStream().toList()) {
			decorated = decorator.decorate(decorated);
		}
		MembershipNodeBuilder builder = MembershipNode.builder(settings, decorated)
			.advertisedAddress(
					() -> MembershipSettingsFactory.advertisedAddress(properties.getAdvertisedAddress(), environment))
			// the starter's own reactions (readiness, leadership notices, meters) never go through the application's
			// event multicaster, where a throwing @EventListener would stop them
			.reactions(() -> reactions.orderedStream().toList())
			.noticeChannels(() -> noticeChannels.orderedStream().toList())
			.listener(publisher::publishEvent);
		// every bean of each: the starter's meters and an application's own metrics alike
		observer.orderedStream().forEach(builder::observer);
		metrics.orderedStream().forEach(builder::metrics);
		runObservers.orderedStream().forEach(builder::runObserver);
		// two without a @Primary one fail the start (a history silently off is the other choice)
		RunHistoryStore history = properties.getHistory().isEnabled() ? runHistory.getIfAvailable() : null;
		if (history != null) {
			builder.runHistory(history, properties.getHistory().getBuffer())
				.runHistoryErrorMessages(
						properties.getHistory().getErrorDetail() == MembershipProperties.History.ErrorDetail.MESSAGE);
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	/** What operators tell the cluster to do through this node, each recorded with who asked. */
	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	ClusterOperations clusterOperations(MembershipNode node) {
		return node.operations();
	}

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "membership.readiness.enabled", matchIfMissing = true)
	MembershipReadinessGate membershipReadinessGate(MembershipNode node, ApplicationEventPublisher publisher,
			MembershipProperties properties) {
		return new MembershipReadinessGate(node, publisher, properties.getReadiness().getTimeout());
	}

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	@ConditionalOnBooleanProperty(name = "membership.follow-readiness", matchIfMissing = true)
	MembershipReadinessDrain membershipReadinessDrain(MembershipNode node, ApplicationContext context) {
		return new MembershipReadinessDrain(node, context);
	}

	@Bean
	@ConditionalOnBean(MembershipNode.class)
	@ConditionalOnMissingBean
	MembershipLifecycle membershipLifecycle(MembershipNode node, Environment environment) {
		return new MembershipLifecycle(node, MembershipSettingsFactory.shutdownPhase(environment));
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "membership.store", havingValue = "mongodb", matchIfMissing = true)
	@ConditionalOnClass(name = { "org.springframework.data.mongodb.MongoDatabaseFactory",
			"com.mongodb.client.MongoDatabase" }) // the blocking driver too: reactive apps have Spring Data but not it
	static class MongoStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(MembershipStore.class)
		@ConditionalOnBean(MongoDatabaseFactory.class)
		MongoMembershipStore membershipStore(MongoDatabaseFactory databaseFactory, MembershipProperties properties,
				MembershipSettings settings) {
			return new MongoMembershipStore(databaseFactory.getMongoDatabase(),
					MongoStoreSettingsFactory.storeSettings(properties, settings));
		}

		@Bean
		@ConditionalOnMissingBean(RunHistoryStore.class)
		@ConditionalOnBean(MongoDatabaseFactory.class)
		@ConditionalOnBooleanProperty(name = "membership.history.enabled", matchIfMissing = true)
		MongoRunHistory membershipRunHistory(MongoDatabaseFactory databaseFactory, MembershipProperties properties,
				MembershipSettings settings) {
			return MongoStoreSettingsFactory.runHistory(databaseFactory.getMongoDatabase(), properties, settings);
		}

	}

	/**
	 * A reactive application (only the reactive driver, or no blocking MongoDatabaseFactory): the store runs on its
	 * ReactiveMongoDatabaseFactory, so no second driver or connection pool is needed.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "membership.store", havingValue = "mongodb", matchIfMissing = true)
	@ConditionalOnClass(name = { "org.springframework.data.mongodb.ReactiveMongoDatabaseFactory",
			"com.mongodb.reactivestreams.client.MongoDatabase", "reactor.core.publisher.Mono" })
	static class ReactiveMongoStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(value = MembershipStore.class,
				type = "org.springframework.data.mongodb.MongoDatabaseFactory")
		@ConditionalOnBean(ReactiveMongoDatabaseFactory.class)
		ReactiveMongoMembershipStore reactiveMembershipStore(ReactiveMongoDatabaseFactory databaseFactory,
				MembershipProperties properties, MembershipSettings settings) {
			// the factory hands out its database without a round trip
			return new ReactiveMongoMembershipStore(databaseFactory.getMongoDatabase().block(),
					MongoStoreSettingsFactory.storeSettings(properties, settings));
		}

		@Bean
		@ConditionalOnMissingBean(value = RunHistoryStore.class,
				type = "org.springframework.data.mongodb.MongoDatabaseFactory")
		@ConditionalOnBean(ReactiveMongoDatabaseFactory.class)
		@ConditionalOnBooleanProperty(name = "membership.history.enabled", matchIfMissing = true)
		ReactiveMongoRunHistory reactiveMembershipRunHistory(ReactiveMongoDatabaseFactory databaseFactory,
				MembershipProperties properties, MembershipSettings settings) {
			MembershipProperties.History history = properties.getHistory();
			return new ReactiveMongoRunHistory(databaseFactory.getMongoDatabase().block(),
					properties.getMongo().getRunsCollection(), history.getRetention(), history.getMaxRuns(),
					MongoStoreSettingsFactory.storeSettings(properties, settings).operationTimeout());
		}

	}

}
