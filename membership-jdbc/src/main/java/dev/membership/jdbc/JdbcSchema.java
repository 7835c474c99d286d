package dev.membership.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;

import dev.membership.spi.StoreException;

/**
 * The store's tables: the published DDL
 * ({@code dev/membership/jdbc/schema-postgresql.sql}, for the default prefix), run with
 * the configured prefix; and the check that the database can keep leases safe.
 */
final class JdbcSchema {

	/**
	 * The DDL on the classpath, for Flyway, Liquibase or a DBA (tables prefixed
	 * {@code membership_}).
	 */
	static final String RESOURCE = "dev/membership/jdbc/schema-postgresql.sql";

	static final int OLDEST_MAJOR_VERSION = 14;

	private final Statements sql;

	private final JdbcStoreSettings settings;

	JdbcSchema(Statements sql, JdbcStoreSettings settings) {
		this.sql = sql;
		this.settings = settings;
	}

	/**
	 * Refuses what cannot keep leases safe: another database than PostgreSQL 14+,
	 * connections with auto-commit off (a statement's write would wait for a commit that
	 * never comes), a standby or read-only server, and commits that are acknowledged
	 * before they are durable ({@link Durability}: {@code synchronous_commit = off}, or
	 * {@code local} where replicas stream); warns where replicas stream and none is
	 * synchronous.
	 */
	void check() {
		String product = this.sql.call("read the database's name and version",
				() -> this.sql.jdbc.execute((ConnectionCallback<String>) (c) -> {
					DatabaseMetaData meta = c.getMetaData();
					return meta.getDatabaseProductName() + " " + meta.getDatabaseMajorVersion();
				}));
		int space = product.lastIndexOf(' ');
		String name = product.substring(0, space);
		int major = Integer.parseInt(product.substring(space + 1));
		if (!"PostgreSQL".equalsIgnoreCase(name) || major < OLDEST_MAJOR_VERSION) {
			throw new IllegalStateException("The membership JDBC store runs on PostgreSQL " + OLDEST_MAJOR_VERSION
					+ " or later, and the DataSource is " + product + ": point it at PostgreSQL, or use the MongoDB "
					+ "store (membership.store=mongodb)");
		}
		boolean autoCommit = this.sql.call("read the connections' auto-commit",
				() -> this.sql.jdbc.execute((ConnectionCallback<Boolean>) java.sql.Connection::getAutoCommit));
		if (!autoCommit) {
			throw new IllegalStateException("The DataSource hands out connections with auto-commit off: each of the "
					+ "store's statements must commit on its own, or an acquisition the node believes in is rolled "
					+ "back when the connection returns to the pool. Turn auto-commit on for this DataSource "
					+ "(spring.datasource.hikari.auto-commit=true, HikariCP's default), or give membership a "
					+ "DataSource of its own (a JdbcMembershipStore bean)");
		}
		transactions();
		Durability.Verdict verdict = durability().verdict();
		if (verdict instanceof Durability.Unsafe unsafe) {
			throw new IllegalStateException(unsafe.message());
		}
		if (verdict instanceof Durability.Doubtful doubtful) {
			LoggerFactory.getLogger(JdbcMembershipStore.class).warn(doubtful.message());
		}
	}

	/**
	 * Runs one empty transaction: PgBouncer in statement pooling mode refuses every
	 * transaction block, the take-over's among them, so that no node would ever lead
	 * while the start went through and health said UP. Found here, and named.
	 */
	private void transactions() {
		try {
			this.sql.jdbc.execute((ConnectionCallback<Void>) (c) -> {
				c.setAutoCommit(false);
				try (java.sql.Statement statement = c.createStatement()) {
					statement.execute("SELECT 1");
					c.commit();
				}
				finally {
					try {
						c.setAutoCommit(true);
					}
					catch (java.sql.SQLException ex) {
						// the connection is gone: the first failure is the one to say
					}
				}
				return null;
			});
		}
		catch (DataAccessException ex) {
			String why = ex.getMostSpecificCause().getMessage();
			if (why != null && why.contains("statement pooling mode")) {
				throw new IllegalStateException("The membership DataSource goes through PgBouncer in statement "
						+ "pooling mode, which refuses transactions (" + why + "), and a take-over runs in one: no "
						+ "node would ever lead. Use pool_mode = transaction for the membership database in "
						+ "PgBouncer, or point the store at the server itself (membership.jdbc.url)", ex);
			}
			throw new StoreException("PostgreSQL: could not run a transaction: " + why, ex, false);
		}
	}

	private Durability durability() {
		return this.sql.call("read the server's durability settings", () -> Durability.read(this.sql.jdbc));
	}

	/**
	 * The columns that an earlier snapshot's tables lack: table (after the prefix),
	 * column, type.
	 */
	private static final List<List<String>> COLUMNS_SINCE = List.of(List.of("runs", "requested_by", "text"),
			List.of("runs", "requested_from", "text"), List.of("runs", "fire_at", "timestamptz"),
			List.of("leases", "fires", "jsonb"));

	/**
	 * Creates what is absent; several nodes starting at once may race, so a failure is
	 * tried once more. A table of an earlier snapshot gets the columns it lacks (an
	 * {@code ALTER TABLE} only then: it locks the table, so it never runs when the
	 * catalog says they are there).
	 */
	void create() {
		for (String statement : statements(this.settings.tablePrefix())) {
			if (indexPresent(statement)) {
				continue;
			}
			this.sql.call("create the membership tables", () -> {
				try {
					this.sql.jdbc.execute(statement);
				}
				catch (DataAccessException ex) {
					// CREATE TABLE IF NOT EXISTS of two sessions at once: one may fail on
					// the catalog's unique index
					this.sql.jdbc.execute(statement);
				}
				return null;
			});
		}
		for (List<String> added : COLUMNS_SINCE) {
			addIfMissing(added.get(0), added.get(1), added.get(2));
		}
	}

	/**
	 * Whether {@code statement} creates an index that the catalog has already: then it
	 * does not run, since {@code CREATE INDEX IF NOT EXISTS} takes its table's
	 * {@code SHARE} lock before it looks, and waits behind every open writer of the
	 * history (seconds, at each start).
	 */
	private boolean indexPresent(String statement) {
		String[] words = statement.strip().split("\\s+");
		if (words.length < 8 || !"INDEX".equalsIgnoreCase(words[1]) || !"ON".equalsIgnoreCase(words[6])) {
			return false;
		}
		String table = words[7];
		int dot = table.indexOf('.');
		String index = (dot >= 0) ? table.substring(0, dot + 1) + words[5] : words[5];
		Boolean present = this.sql.call("read the index " + index,
				() -> this.sql.jdbc.queryForObject("SELECT to_regclass(?) IS NOT NULL", Boolean.class, index));
		return Boolean.TRUE.equals(present);
	}

	private void addIfMissing(String suffix, String column, String type) {
		String table = this.settings.table(suffix);
		int dot = table.indexOf('.');
		// unquoted: folded
		String schema = (dot >= 0) ? table.substring(0, dot).toLowerCase(Locale.ROOT) : null;
		String name = table.substring(dot + 1).toLowerCase(Locale.ROOT);
		List<String> present = this.sql.call("read the columns of " + table, () -> this.sql.jdbc.queryForList(
				"SELECT column_name FROM information_schema.columns WHERE table_schema = coalesce(?, current_schema()) "
						+ "AND table_name = ?",
				String.class, schema, name));
		if (!present.isEmpty() && !present.contains(column)) {
			this.sql.call("add " + column + " to " + table, () -> {
				this.sql.jdbc.execute("ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS " + column + " " + type);
				return null;
			});
		}
	}

	/** The DDL's statements with {@code prefix} in place of {@code membership_}. */
	static List<String> statements(String prefix) {
		List<String> statements = new ArrayList<>();
		StringBuilder current = new StringBuilder();
		for (String line : ddl().split("\n")) {
			String code = line.contains("--") ? line.substring(0, line.indexOf("--")) : line;
			current.append(code).append('\n');
			if (code.trim().endsWith(";")) {
				String statement = current.toString().trim();
				statements.add(statement.substring(0, statement.length() - 1)
					.replace("TABLE IF NOT EXISTS membership_", "TABLE IF NOT EXISTS " + prefix)
					.replace("INDEX IF NOT EXISTS membership_", "INDEX IF NOT EXISTS " + indexPrefix(prefix))
					.replace(" ON membership_", " ON " + prefix));
				current.setLength(0);
			}
		}
		return statements;
	}

	/**
	 * Indexes live in their table's schema and take no schema name: the prefix without
	 * it.
	 */
	private static String indexPrefix(String prefix) {
		return prefix.substring(prefix.indexOf('.') + 1);
	}

	static String ddl() {
		try (InputStream in = JdbcSchema.class.getClassLoader().getResourceAsStream(RESOURCE)) {
			if (in == null) {
				throw new IllegalStateException("The membership JDBC store's DDL is missing: " + RESOURCE);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
