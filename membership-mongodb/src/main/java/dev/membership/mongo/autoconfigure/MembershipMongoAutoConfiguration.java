package dev.membership.mongo.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.data.mongodb.MongoDatabaseFactory;
import org.springframework.data.mongodb.ReactiveMongoDatabaseFactory;

import dev.membership.autoconfigure.BroadcastAutoConfiguration;
import dev.membership.autoconfigure.HistoryProperties;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipProperties;
import dev.membership.autoconfigure.MembershipStoreOffer;
import dev.membership.autoconfigure.MembershipStores;
import dev.membership.autoconfigure.StoreBroadcastKeys;
import dev.membership.mongo.MongoBroadcastKeys;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.MongoRunHistory;
import dev.membership.mongo.ReactiveMongoBroadcastKeys;
import dev.membership.mongo.ReactiveMongoMembershipStore;
import dev.membership.mongo.ReactiveMongoRunHistory;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.RunHistoryStore;

/**
 * The MongoDB store on the application's own MongoDB (its {@link MongoDatabaseFactory},
 * or the {@link ReactiveMongoDatabaseFactory} of a reactive application; no second
 * connection pool), with the run history and the broadcast's generated key beside it.
 * Chosen when the application has MongoDB and no other store can keep the cluster, or by
 * {@code membership.store=mongodb}. Every bean backs off when the application defines its
 * own.
 */
@AutoConfiguration(before = { MembershipAutoConfiguration.class, BroadcastAutoConfiguration.class },
		afterName = { "org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration",
				"org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration",
				"org.springframework.boot.mongodb.autoconfigure.MongoReactiveAutoConfiguration",
				"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ MembershipProperties.class, MembershipMongoProperties.class })
@ImportRuntimeHints(MembershipMongoRuntimeHints.class)
public final class MembershipMongoAutoConfiguration {

	/**
	 * What this module offers the application: the starter chooses among the store
	 * modules with it.
	 */
	@Bean
	MembershipStoreOffer membershipMongoStoreOffer(ConfigurableListableBeanFactory beans) {
		return MongoStoreOffer.of(beans, beans.getBeanClassLoader());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "membership.store", havingValue = MongoStoreOffer.STORE, matchIfMissing = true)
	@ConditionalOnClass(name = { "org.springframework.data.mongodb.MongoDatabaseFactory",
			// the blocking driver too: reactive apps have Spring Data but not it
			"com.mongodb.client.MongoDatabase" })
	static class MongoStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(MembershipStore.class)
		@ConditionalOnBean(MongoDatabaseFactory.class)
		MongoMembershipStore membershipStore(MongoDatabaseFactory databaseFactory, MembershipProperties properties,
				MembershipMongoProperties mongo, MembershipSettings settings, ListableBeanFactory beans) {
			MembershipStores.check(beans, properties.getStore());
			return new MongoMembershipStore(databaseFactory.getMongoDatabase(),
					MongoStoreSettingsFactory.storeSettings(mongo, settings));
		}

		@Bean
		@ConditionalOnMissingBean(RunHistoryStore.class)
		@ConditionalOnBean(MongoMembershipStore.class)
		@ConditionalOnBooleanProperty(name = "membership.history.enabled", matchIfMissing = true)
		MongoRunHistory membershipRunHistory(MongoDatabaseFactory databaseFactory, MembershipProperties properties,
				MembershipMongoProperties mongo, MembershipSettings settings) {
			return MongoStoreSettingsFactory.runHistory(databaseFactory.getMongoDatabase(), properties, mongo,
					settings);
		}

		/**
		 * The broadcast's key, generated once and kept in MongoDB: the starter uses it
		 * where none is configured.
		 */
		@Bean
		@ConditionalOnMissingBean(StoreBroadcastKeys.class)
		@ConditionalOnBean(MongoMembershipStore.class)
		StoreBroadcastKeys mongoBroadcastKeys(MongoDatabaseFactory databaseFactory, MembershipMongoProperties mongo,
				MembershipSettings settings) {
			return new StoreBroadcastKeys(
					new MongoBroadcastKeys(databaseFactory.getMongoDatabase(), mongo.getKeysCollection(),
							MongoStoreSettingsFactory.storeSettings(mongo, settings).operationTimeout()));
		}

	}

	/**
	 * A reactive application (only the reactive driver, or no blocking
	 * MongoDatabaseFactory): the store runs on its ReactiveMongoDatabaseFactory, so no
	 * second driver or connection pool is needed.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "membership.store", havingValue = MongoStoreOffer.STORE, matchIfMissing = true)
	@ConditionalOnClass(name = { "org.springframework.data.mongodb.ReactiveMongoDatabaseFactory",
			"com.mongodb.reactivestreams.client.MongoDatabase", "reactor.core.publisher.Mono" })
	static class ReactiveMongoStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(value = MembershipStore.class,
				type = "org.springframework.data.mongodb.MongoDatabaseFactory")
		@ConditionalOnBean(ReactiveMongoDatabaseFactory.class)
		ReactiveMongoMembershipStore reactiveMembershipStore(ReactiveMongoDatabaseFactory databaseFactory,
				MembershipProperties properties, MembershipMongoProperties mongo, MembershipSettings settings,
				ListableBeanFactory beans) {
			MembershipStores.check(beans, properties.getStore());
			// the factory hands out its database without a round trip
			return new ReactiveMongoMembershipStore(databaseFactory.getMongoDatabase().block(),
					MongoStoreSettingsFactory.storeSettings(mongo, settings));
		}

		@Bean
		@ConditionalOnMissingBean(RunHistoryStore.class)
		@ConditionalOnBean(ReactiveMongoMembershipStore.class)
		@ConditionalOnBooleanProperty(name = "membership.history.enabled", matchIfMissing = true)
		ReactiveMongoRunHistory reactiveMembershipRunHistory(ReactiveMongoDatabaseFactory databaseFactory,
				MembershipProperties properties, MembershipMongoProperties mongo, MembershipSettings settings) {
			HistoryProperties history = properties.getHistory();
			return new ReactiveMongoRunHistory(databaseFactory.getMongoDatabase().block(), mongo.getRunsCollection(),
					history.getRetention(), history.getMaxRuns(),
					MongoStoreSettingsFactory.storeSettings(mongo, settings).operationTimeout());
		}

		/**
		 * The broadcast's key, generated once and kept in MongoDB on the reactive driver:
		 * the starter uses it where none is configured.
		 */
		@Bean
		@ConditionalOnMissingBean(StoreBroadcastKeys.class)
		@ConditionalOnBean(ReactiveMongoMembershipStore.class)
		StoreBroadcastKeys reactiveMongoBroadcastKeys(ReactiveMongoDatabaseFactory databaseFactory,
				MembershipMongoProperties mongo, MembershipSettings settings) {
			return new StoreBroadcastKeys(
					ReactiveMongoBroadcastKeys.of(databaseFactory.getMongoDatabase().block(), mongo.getKeysCollection(),
							MongoStoreSettingsFactory.storeSettings(mongo, settings).operationTimeout()));
		}

	}

}
