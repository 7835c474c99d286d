package dev.membership.jdbc.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * The PostgreSQL store's own settings, {@code membership.jdbc.*}; the starter's
 * ({@code membership.*}) stay in {@code MembershipProperties}.
 */
@ConfigurationProperties("membership.jdbc")
public class MembershipJdbcProperties {

	/**
	 * Whether the store creates its tables at startup when they are absent (off when
	 * Flyway or Liquibase does).
	 */
	private boolean initializeSchema = true;

	/** The start of the store's table names, optionally after a schema name and a dot. */
	private String tablePrefix = "membership_";

	/**
	 * How long a borrow from the store's own pool may wait, and each read of an answer
	 * (the connection's network timeout, in milliseconds); on the application's pool, a
	 * statement's cancel after it, rounded up to whole seconds. Must be shorter than the
	 * lease. Defaults to the renewal interval.
	 */
	@DurationUnit(ChronoUnit.SECONDS)
	private Duration operationTimeout;

	/**
	 * The JDBC URL of the database the store keeps the cluster in, when it is not the
	 * application's (spring.datasource.url); with it, username and password. Needs the
	 * store's own pool.
	 */
	private String url;

	/** The user of membership.jdbc.url. */
	private String username;

	/** The password of membership.jdbc.url. */
	private String password;

	private final Pool pool = new Pool();

	public boolean isInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(boolean initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public String getTablePrefix() {
		return this.tablePrefix;
	}

	public void setTablePrefix(String tablePrefix) {
		this.tablePrefix = tablePrefix;
	}

	public Duration getOperationTimeout() {
		return this.operationTimeout;
	}

	public void setOperationTimeout(Duration operationTimeout) {
		this.operationTimeout = operationTimeout;
	}

	public String getUrl() {
		return this.url;
	}

	public void setUrl(String url) {
		this.url = url;
	}

	public String getUsername() {
		return this.username;
	}

	public void setUsername(String username) {
		this.username = username;
	}

	public String getPassword() {
		return this.password;
	}

	public void setPassword(String password) {
		this.password = password;
	}

	public Pool getPool() {
		return this.pool;
	}

	/** The store's connections. */
	public static class Pool {

		/**
		 * Whether the store uses the application's connection pool (its DataSource)
		 * instead of a pool of its own, so that an application that holds every
		 * connection holds the node's renewals up too.
		 */
		private boolean shared = false;

		/**
		 * How many connections the store's own pools keep: one for the run history and
		 * the broadcast keys, the others for the node's loop (with one, they share it).
		 */
		private int size = 2;

		public boolean isShared() {
			return this.shared;
		}

		public void setShared(boolean shared) {
			this.shared = shared;
		}

		public int getSize() {
			return this.size;
		}

		public void setSize(int size) {
			this.size = size;
		}

	}

}
