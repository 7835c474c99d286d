package dev.membership.jdbc.autoconfigure;

import java.util.Arrays;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.dao.DataAccessException;

import dev.membership.autoconfigure.BroadcastAutoConfiguration;
import dev.membership.autoconfigure.HistoryProperties;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipProperties;
import dev.membership.autoconfigure.MembershipStoreOffer;
import dev.membership.autoconfigure.MembershipStores;
import dev.membership.autoconfigure.StoreBroadcastKeys;
import dev.membership.autoconfigure.StoreOperationTimeout;
import dev.membership.jdbc.JdbcBroadcastKeys;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcRunHistory;
import dev.membership.jdbc.JdbcStoreSettings;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.StoreException;

/**
 * The PostgreSQL store on the application's {@link DataSource}: chosen when the
 * application has one and no other store can keep the cluster, or by
 * {@code membership.store=jdbc}. With two possible and no choice made, startup fails and
 * says to choose. A database the store cannot keep leases safe on fails the startup too;
 * one that cannot be reached yet is checked again by the node.
 */
@AutoConfiguration(before = { MembershipAutoConfiguration.class, BroadcastAutoConfiguration.class },
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ MembershipProperties.class, MembershipJdbcProperties.class })
@ImportRuntimeHints(MembershipJdbcRuntimeHints.class)
public final class MembershipJdbcAutoConfiguration {

	static final String STORE = "jdbc";

	private static final String MODULE = "dev.membership:membership-jdbc";

	/**
	 * What this module offers the application: the starter chooses among the store
	 * modules with it.
	 */
	@Bean
	MembershipStoreOffer membershipJdbcStoreOffer(ConfigurableListableBeanFactory beans) {
		// one candidate as @ConditionalOnSingleCandidate counts them: the only one, the
		// one @Primary, or the one
		// that is not a @Fallback
		String[] dataSources = beans.getBeanNamesForType(DataSource.class, true, false);
		long primary = Arrays.stream(dataSources)
			.filter((name) -> beans.containsBeanDefinition(name) && beans.getBeanDefinition(name).isPrimary())
			.count();
		long notFallback = Arrays.stream(dataSources)
			.filter((name) -> !beans.containsBeanDefinition(name) || !beans.getBeanDefinition(name).isFallback())
			.count();
		if (dataSources.length == 1 || primary == 1 || (primary == 0 && notFallback == 1)) {
			return MembershipStoreOffer.ready(STORE, MODULE, MembershipJdbcProperties.class);
		}
		return MembershipStoreOffer.missing(STORE, MODULE, MembershipJdbcProperties.class,
				(dataSources.length == 0)
						? "there is no DataSource bean (is spring-boot-starter-jdbc there, with spring.datasource.url?)"
						: "there are " + dataSources.length + " DataSource beans and none is @Primary");
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "membership.store", havingValue = STORE, matchIfMissing = true)
	static class JdbcStoreConfiguration {

		private static final Logger log = LoggerFactory.getLogger(MembershipJdbcAutoConfiguration.class);

		/**
		 * The store's connections: a small pool of its own unless
		 * {@code membership.jdbc.pool.shared=true}.
		 */
		@Bean
		@ConditionalOnMissingBean({ MembershipStore.class, MembershipConnections.class })
		@ConditionalOnSingleCandidate(DataSource.class)
		MembershipConnections membershipJdbcConnections(DataSource dataSource, MembershipProperties properties,
				MembershipJdbcProperties jdbc, MembershipSettings settings, ListableBeanFactory beanFactory) {
			// before a pool is made for a store not chosen
			MembershipStores.check(beanFactory, properties.getStore());
			return MembershipConnections.of(dataSource, beanFactory, jdbc,
					storeSettings(jdbc, settings).operationTimeout());
		}

		@Bean
		@ConditionalOnMissingBean(MembershipStore.class)
		@ConditionalOnBean(MembershipConnections.class)
		JdbcMembershipStore membershipStore(MembershipConnections connections, MembershipJdbcProperties jdbc,
				MembershipSettings settings, ObjectProvider<DataSource> applications) {
			JdbcMembershipStore store = new JdbcMembershipStore(connections.dataSource(),
					storeSettings(jdbc, settings));
			try {
				// an unsupported database fails the startup, naming the fix
				store.initialize();
				DataSource application = applications.getIfUnique();
				if (application != null && !connections.isShared()) {
					String missing = SignalRight.problem(connections.dataSource(), application);
					if (missing != null) {
						log.warn(missing);
					}
				}
			}
			catch (StoreException | DataAccessException ex) {
				log.warn("Could not reach the membership database at startup ({}); the node checks it again and "
						+ "creates its tables when it can", ex.getMessage());
			}
			return store;
		}

		/**
		 * The run history in PostgreSQL beside the store ({@code membership.history.*}).
		 */
		@Bean
		@ConditionalOnMissingBean(RunHistoryStore.class)
		@ConditionalOnBean(JdbcMembershipStore.class)
		@ConditionalOnBooleanProperty(name = "membership.history.enabled", matchIfMissing = true)
		JdbcRunHistory membershipRunHistory(ObjectProvider<MembershipConnections> connections, DataSource dataSource,
				MembershipProperties properties, MembershipJdbcProperties jdbc, MembershipSettings settings) {
			HistoryProperties history = properties.getHistory();
			return new JdbcRunHistory(historyDataSource(connections, dataSource), storeSettings(jdbc, settings),
					history.getRetention(), history.getMaxRuns());
		}

		/**
		 * The broadcast's keys, generated once and kept in PostgreSQL, where no keys are
		 * configured ({@code membership.broadcast.keys}) and the PostgreSQL store keeps
		 * the cluster.
		 */
		@Bean
		@ConditionalOnMissingBean(StoreBroadcastKeys.class)
		@ConditionalOnBean(JdbcMembershipStore.class)
		StoreBroadcastKeys jdbcBroadcastKeys(ObjectProvider<MembershipConnections> connections, DataSource dataSource,
				MembershipJdbcProperties jdbc, MembershipSettings settings) {
			return new StoreBroadcastKeys(
					new JdbcBroadcastKeys(historyDataSource(connections, dataSource), storeSettings(jdbc, settings)));
		}

		/**
		 * The run history's and the broadcast keys' connections: the store's own (apart
		 * from the loop's), or the application's DataSource beside a store bean of the
		 * application's.
		 */
		private static DataSource historyDataSource(ObjectProvider<MembershipConnections> connections,
				DataSource dataSource) {
			MembershipConnections own = connections.getIfAvailable();
			return (own != null) ? own.historyDataSource() : dataSource;
		}

		/**
		 * The store's settings; the operation timeout as every store's
		 * ({@link StoreOperationTimeout}).
		 */
		private static JdbcStoreSettings storeSettings(MembershipJdbcProperties jdbc, MembershipSettings settings) {
			return new JdbcStoreSettings(jdbc.getTablePrefix(),
					StoreOperationTimeout.of(STORE, jdbc.getOperationTimeout(), settings), jdbc.isInitializeSchema());
		}

	}

}
