package dev.membership.jdbc.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.util.ClassUtils;

import dev.membership.autoconfigure.BroadcastAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipProperties;
import dev.membership.engine.MembershipSettings;
import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.jdbc.JdbcBroadcastKeys;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcRunHistory;
import dev.membership.jdbc.JdbcStoreSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.StoreException;

/**
 * The PostgreSQL store on the application's {@link DataSource}: chosen when the application has one and no MongoDB, or
 * by {@code membership.store=jdbc}. With both and no choice made, startup fails and says to choose. A database the
 * store cannot keep leases safe on fails the startup too; one that cannot be reached yet is checked again by the node.
 */
@AutoConfiguration(before = { MembershipAutoConfiguration.class, BroadcastAutoConfiguration.class },
		afterName = { "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration",
				"org.springframework.boot.data.mongodb.autoconfigure.DataMongoReactiveAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "membership.store", havingValue = "jdbc", matchIfMissing = true)
@ImportRuntimeHints(MembershipJdbcRuntimeHints.class)
public class MembershipJdbcAutoConfiguration {

	private static final Logger log = LoggerFactory.getLogger(MembershipJdbcAutoConfiguration.class);

	private static final String[] MONGO_FACTORIES = { "org.springframework.data.mongodb.MongoDatabaseFactory",
			"org.springframework.data.mongodb.ReactiveMongoDatabaseFactory" };

	/** The store's connections: a small pool of its own unless {@code membership.jdbc.pool.shared=true}. */
	@Bean
	@ConditionalOnMissingBean({ MembershipStore.class, MembershipConnections.class })
	@ConditionalOnSingleCandidate(DataSource.class)
	MembershipConnections membershipJdbcConnections(DataSource dataSource, MembershipProperties properties,
			MembershipSettings settings, ListableBeanFactory beanFactory) {
		if (properties.getStore() == null && hasMongo(beanFactory)) {
			throw new AmbiguousMembershipStoreException(); // before a pool is made for a store that is not chosen
		}
		return MembershipConnections.of(dataSource, beanFactory, properties.getJdbc(),
				storeSettings(properties, settings).operationTimeout());
	}

	@Bean
	@ConditionalOnMissingBean(MembershipStore.class)
	@ConditionalOnBean(MembershipConnections.class)
	JdbcMembershipStore membershipStore(MembershipConnections connections, MembershipProperties properties,
			MembershipSettings settings) {
		JdbcMembershipStore store = new JdbcMembershipStore(connections.dataSource(),
				storeSettings(properties, settings));
		try {
			store.initialize(); // an unsupported database fails the startup, naming the fix
		}
		catch (StoreException ex) {
			log.warn("Could not reach the membership database at startup ({}); the node checks it again and creates "
					+ "its tables when it can", ex.getMessage());
		}
		return store;
	}

	/** The run history in PostgreSQL beside the store ({@code membership.history.*}). */
	@Bean
	@ConditionalOnMissingBean(RunHistoryStore.class)
	@ConditionalOnBean(JdbcMembershipStore.class)
	@ConditionalOnBooleanProperty(name = "membership.history.enabled", matchIfMissing = true)
	JdbcRunHistory membershipRunHistory(ObjectProvider<MembershipConnections> connections, DataSource dataSource,
			MembershipProperties properties, MembershipSettings settings) {
		MembershipProperties.History history = properties.getHistory();
		return new JdbcRunHistory(historyDataSource(connections, dataSource), storeSettings(properties, settings),
				history.getRetention(), history.getMaxRuns());
	}

	/**
	 * The broadcast's keys, generated once and kept in PostgreSQL, where no keys are configured
	 * ({@code membership.broadcast.keys}) and the PostgreSQL store keeps the cluster.
	 */
	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(JdbcMembershipStore.class)
	@Conditional(NoBroadcastKeysConfigured.class)
	BroadcastKeySource jdbcBroadcastKeys(ObjectProvider<MembershipConnections> connections, DataSource dataSource,
			MembershipProperties properties, MembershipSettings settings) {
		return new JdbcBroadcastKeys(historyDataSource(connections, dataSource), storeSettings(properties, settings));
	}

	/**
	 * The run history's and the broadcast keys' connections: the store's own (apart from the loop's), or the
	 * application's DataSource beside a store bean of the application's.
	 */
	private static DataSource historyDataSource(ObjectProvider<MembershipConnections> connections,
			DataSource dataSource) {
		MembershipConnections own = connections.getIfAvailable();
		return (own != null) ? own.historyDataSource() : dataSource;
	}

	/**
	 * The store's settings.
	 * @throws IllegalStateException when the operation timeout is not shorter than the lease: a call could then
	 * outlast the lease it renews
	 */
	private static JdbcStoreSettings storeSettings(MembershipProperties properties, MembershipSettings settings) {
		MembershipProperties.Jdbc jdbc = properties.getJdbc();
		Duration timeout = (jdbc.getOperationTimeout() != null) ? jdbc.getOperationTimeout()
				: settings.renewalInterval();
		if (timeout.compareTo(settings.leaseDuration()) >= 0) {
			throw new IllegalStateException("membership.jdbc.operation-timeout (" + timeout + ") is not shorter than "
					+ "the lease (membership.lease-duration=" + settings.leaseDuration() + "): one call of the store "
					+ "could outlast the lease it renews. Set membership.jdbc.operation-timeout below the lease (the "
					+ "renewal interval, " + settings.renewalInterval() + ", unless set)");
		}
		return new JdbcStoreSettings(jdbc.getTablePrefix(), timeout, jdbc.isInitializeSchema());
	}

	private static boolean hasMongo(ListableBeanFactory beanFactory) {
		ClassLoader loader = MembershipJdbcAutoConfiguration.class.getClassLoader();
		for (String name : MONGO_FACTORIES) {
			if (ClassUtils.isPresent(name, loader)
					&& beanFactory.getBeanNamesForType(ClassUtils.resolveClassName(name, loader)).length > 0) {
				return true;
			}
		}
		return false;
	}

}
