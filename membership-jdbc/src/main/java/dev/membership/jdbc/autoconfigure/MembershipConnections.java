package dev.membership.jdbc.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * The connections the PostgreSQL store, its run history and its broadcast keys use: by
 * default a small pool of their own ({@code membership.jdbc.pool.size}, two), so that an
 * application that exhausts its own pool cannot hold the node's renewals up, each
 * connection's reads bounded in milliseconds (the operation timeout, as the socket's read
 * timeout) and never using server-side prepared statements (PgBouncer's transaction mode
 * hands each transaction to any server connection). Built from
 * {@code membership.jdbc.url} when set, else from the application's
 * ({@code spring.datasource.*}, or its HikariCP pool's settings);
 * {@code membership.jdbc.pool.shared=true} uses the application's pool as it is.
 */
final class MembershipConnections implements DisposableBean {

	private static final Logger log = LoggerFactory.getLogger(MembershipConnections.class);

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			MembershipConnections.class.getClassLoader());

	private static final boolean BOOT_JDBC_PRESENT = ClassUtils.isPresent(
			"org.springframework.boot.jdbc.autoconfigure.DataSourceProperties",
			MembershipConnections.class.getClassLoader());

	private final DataSource dataSource;

	private final DataSource history;

	private final List<AutoCloseable> pools;

	private MembershipConnections(DataSource dataSource, DataSource history, List<AutoCloseable> pools) {
		this.dataSource = dataSource;
		this.history = history;
		this.pools = pools;
	}

	private static MembershipConnections shared(DataSource application) {
		return new MembershipConnections(application, application, List.of());
	}

	/**
	 * The store's connections: a pool of its own, or {@code application}'s when asked or
	 * when none can be built.
	 */
	static MembershipConnections of(DataSource application, ListableBeanFactory beanFactory,
			MembershipJdbcProperties jdbc, Duration operationTimeout) {
		if (StringUtils.hasText(jdbc.getUrl()) && (jdbc.getPool().isShared() || !HIKARI_PRESENT)) {
			// another database than the application's, which only a pool of the store's
			// own can reach
			throw new IllegalStateException("membership.jdbc.url names the membership database, but the store "
					+ (jdbc.getPool().isShared()
							? "is set to share the application's pool (membership.jdbc.pool" + ".shared=true)"
							: "cannot build a pool of its own: HikariCP is not on the classpath")
					+ ". Remove membership.jdbc.pool.shared, or add com.zaxxer:HikariCP (spring-boot-starter-jdbc "
					+ "brings it), or remove membership.jdbc.url to keep the cluster in the application's database");
		}
		if (jdbc.getPool().isShared()) {
			return shared(application);
		}
		Target target = Target.of(application, beanFactory, jdbc);
		if (target == null || !HIKARI_PRESENT) {
			log.warn(
					"The membership store shares the application's connection pool: {}. An application that holds "
							+ "every connection holds the node's renewals up too. Set membership.jdbc.url (with "
							+ "membership.jdbc.username and membership.jdbc.password) for a pool of its own, or "
							+ "membership.jdbc.pool.shared=true to say this is meant",
					(target == null) ? "its URL cannot be read from the application's DataSource"
							: "HikariCP is not on the " + "classpath");
			return shared(application);
		}
		int size = jdbc.getPool().getSize();
		if (size < 1) {
			throw new IllegalStateException("membership.jdbc.pool.size is " + size + ": the store needs at least one "
					+ "connection of its own. Set it to 2 (the default) or more, or membership.jdbc.pool.shared=true");
		}
		// the node's loop apart from the run history and the broadcast keys (their writes
		// and the actuator's reads), so that neither waits for a connection the other
		// holds; one pool for all with a single connection
		// each made anew when an outage left it without a connection: HikariCP's own
		// attempts to connect again slow down to one every 5 s
		RenewedPool loop = new RenewedPool(
				() -> Hikari.pool(target, Math.max(1, size - 1), operationTimeout, "membership"));
		if (size == 1) {
			DataSource bounded = new BoundedReads(loop, operationTimeout);
			return new MembershipConnections(bounded, bounded, List.of(loop));
		}
		RenewedPool history = new RenewedPool(() -> Hikari.pool(target, 1, operationTimeout, "membership-history"));
		return new MembershipConnections(new BoundedReads(loop, operationTimeout),
				new BoundedReads(history, operationTimeout), List.of(loop, history));
	}

	/** The store's connections, for the node's loop. */
	DataSource dataSource() {
		return this.dataSource;
	}

	/** The run history's and the broadcast keys' connections. */
	DataSource historyDataSource() {
		return this.history;
	}

	boolean isShared() {
		return this.pools.isEmpty();
	}

	@Override
	public void destroy() throws Exception {
		for (AutoCloseable pool : this.pools) {
			pool.close();
		}
	}

	/**
	 * Where the store's own pool connects, and what it keeps from the application's
	 * HikariCP pool: the driver's properties (SSL, say), the schema and the SQL each
	 * connection runs first (a {@code search_path}, say), so that the store finds its
	 * tables where it found them on the application's pool.
	 */
	record Target(String url, @Nullable String username, @Nullable String password, Properties driver,
			@Nullable String schema, @Nullable String initSql) {

		Target(String url, @Nullable String username, @Nullable String password) {
			this(url, username, password, new Properties(), null, null);
		}

		static @Nullable Target of(DataSource application, ListableBeanFactory beanFactory,
				MembershipJdbcProperties jdbc) {
			if (StringUtils.hasText(jdbc.getUrl())) {
				return new Target(jdbc.getUrl(), jdbc.getUsername(), jdbc.getPassword());
			}
			Target pool = HIKARI_PRESENT ? Hikari.target(application) : null;
			if (pool != null) {
				return pool;
			}
			return BOOT_JDBC_PRESENT ? BootJdbc.target(beanFactory) : null;
		}

	}

	/**
	 * Spring Boot's {@code spring.datasource.*}, apart so that nothing of it loads
	 * without it.
	 */
	private static final class BootJdbc {

		static @Nullable Target target(ListableBeanFactory beanFactory) {
			DataSourceProperties properties = beanFactory.getBeanProvider(DataSourceProperties.class).getIfUnique();
			return (properties != null && StringUtils.hasText(properties.getUrl()))
					? new Target(properties.getUrl(), properties.determineUsername(), properties.determinePassword())
					: null;
		}

	}

	/** HikariCP's part, apart so that nothing of it loads without it. */
	private static final class Hikari {

		/**
		 * The application's HikariCP pool's settings (the DataSource may be a proxy of
		 * it).
		 */
		static @Nullable Target target(DataSource application) {
			HikariDataSource hikari = null;
			try {
				hikari = application.isWrapperFor(HikariDataSource.class) ? application.unwrap(HikariDataSource.class)
						: null;
			}
			catch (SQLException ex) {
				// not a wrapper of a HikariCP pool
			}
			if (hikari == null || !StringUtils.hasText(hikari.getJdbcUrl())) {
				return null;
			}
			Properties driver = new Properties();
			driver.putAll(hikari.getDataSourceProperties());
			return new Target(hikari.getJdbcUrl(), hikari.getUsername(), hikari.getPassword(), driver,
					hikari.getSchema(), hikari.getConnectionInitSql());
		}

		static HikariDataSource pool(Target target, int size, Duration operationTimeout, String name) {
			HikariConfig config = new HikariConfig();
			config.setDataSourceProperties(target.driver());
			config.setPoolName(name);
			config.setJdbcUrl(target.url());
			config.setUsername(target.username());
			config.setPassword(target.password());
			if (target.schema() != null) {
				config.setSchema(target.schema());
			}
			if (target.initSql() != null) {
				config.setConnectionInitSql(target.initSql());
			}
			config.setMaximumPoolSize(size);
			config.setMinimumIdle(size);
			config.setAutoCommit(true);
			long millis = Math.max(250, operationTimeout.toMillis()); // HikariCP's least
			// a borrow waits no longer than a call may take
			config.setConnectionTimeout(millis);
			config.setValidationTimeout(millis);
			// a database down at startup: the node checks it again
			config.setInitializationFailTimeout(-1);
			// pgjdbc: no server-side prepared statements (PgBouncer's transaction mode),
			// keep-alive, whole seconds
			config.addDataSourceProperty("prepareThreshold", "0");
			config.addDataSourceProperty("tcpKeepAlive", "true");
			config.addDataSourceProperty("connectTimeout", Long.toString((millis + 999) / 1000));
			// named in pg_stat_activity and the server's log, unless the application
			// named
			// its connections itself
			if (!target.driver().containsKey("ApplicationName") && !target.url().contains("ApplicationName=")) {
				config.addDataSourceProperty("ApplicationName", name);
			}
			return new HikariDataSource(config);
		}

	}

	/**
	 * Each connection handed out reads with the operation timeout, in milliseconds, as
	 * its socket's read timeout ({@link Connection#setNetworkTimeout}): a server that
	 * stops answering fails the call then, where a cancel sent on a connection of its own
	 * would not reach it. The connection is dropped then, and no cancel goes out: a
	 * statement waiting on the server (for a lock, say) may still complete there, which
	 * the protocol tolerates (a write whose answer was lost). HikariCP restores the
	 * connection's own timeout as it comes back.
	 */
	private static final class BoundedReads extends DelegatingDataSource {

		private final int millis;

		BoundedReads(DataSource pool, Duration operationTimeout) {
			super(pool);
			this.millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, operationTimeout.toMillis()));
		}

		@Override
		public Connection getConnection() throws SQLException {
			return bounded(super.getConnection());
		}

		@Override
		public Connection getConnection(String username, String password) throws SQLException {
			return bounded(super.getConnection(username, password));
		}

		private Connection bounded(Connection connection) throws SQLException {
			try {
				connection.setNetworkTimeout(Runnable::run, this.millis);
				return connection;
			}
			catch (SQLException | RuntimeException ex) {
				connection.close();
				throw ex;
			}
		}

	}

}
