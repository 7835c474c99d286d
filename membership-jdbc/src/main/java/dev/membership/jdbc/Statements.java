package dev.membership.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.SQLWarningException;
import org.springframework.jdbc.core.JdbcTemplate;

import dev.membership.spi.StoreException;

/**
 * What every statement of the store shares: the template (autocommit, one statement each,
 * cancelled after the operation timeout), the tables' names, the server's clock in SQL,
 * and the translation of failures.
 */
final class Statements {

	/**
	 * The server's time now, in milliseconds as the engine keeps time:
	 * {@code clock_timestamp()} is the actual time, where {@code now()} would be the
	 * transaction's start ("Date/Time Functions", PostgreSQL manual 9.9.5).
	 */
	static final String NOW = "date_trunc('milliseconds', clock_timestamp())";

	/**
	 * SQLSTATE {@code read_only_sql_transaction}: a write on a standby or a read-only
	 * session.
	 */
	private static final String READ_ONLY = "25006";

	/** The expiry of a released lease ({@code LeaseRecord.RELEASED}). */
	static final String RELEASED = "to_timestamp(0)";

	final JdbcTemplate jdbc;

	final String leases;

	final String nodes;

	final String roster;

	final String terms;

	/**
	 * How long a take-over waits for an older term's fenced transactions before it ends
	 * them: a quarter of a call (the take-over, the ending and the second take-over stay
	 * within the call's bound).
	 */
	final long takeOverWaitMillis;

	final long operationMillis;

	/**
	 * A lease write's own {@code synchronous_commit}: the session's, raised to {@code on}
	 * where it is {@code off} or {@code local}, local to the write's transaction. A
	 * setting changed under the store ({@code ALTER SYSTEM} and a reload switch open
	 * sessions, with no word to their clients) must not let a crash lose a lease it
	 * acknowledged: the commit reads the setting as its transaction has it. The startup
	 * still refuses a server whose sessions have it off, for the fenced writes of the
	 * application, which the store does not make.
	 */
	static final String DURABLE_COMMIT = "set_config('synchronous_commit', CASE WHEN "
			+ "current_setting('synchronous_commit') IN ('off', 'local') THEN 'on' ELSE "
			+ "current_setting('synchronous_commit') END, true)";

	/**
	 * For a lease write's {@code WHERE}: its {@link #DURABLE_COMMIT commit made durable},
	 * and the server's {@code lock_timeout} for the rest of the statement, a quarter of
	 * the operation timeout. Evaluated on the row before the write waits for its lock
	 * (the row lock taken by another session, say), so that the server gives the wait up
	 * as the node does, rather than leave a backend waiting after the node's call timed
	 * out. Local to the statement's transaction: nothing stays on the connection
	 * (PgBouncer's transaction mode shares it).
	 */
	final String writeSettings;

	/**
	 * Whether the next call reads the server's durability first: a retryable failure came
	 * before it.
	 */
	private volatile boolean recheck;

	Statements(DataSource dataSource, JdbcStoreSettings settings) {
		this.jdbc = new ConfirmedWrites(dataSource);
		this.jdbc.setQueryTimeout((int) Math.max(1, (settings.operationTimeout().toMillis() + 999) / 1000));
		this.leases = settings.table("leases");
		this.nodes = settings.table("nodes");
		this.roster = settings.table("roster");
		this.terms = settings.table("terms");
		this.operationMillis = Math.max(1, settings.operationTimeout().toMillis());
		this.takeOverWaitMillis = Math.max(1, this.operationMillis / 4);
		this.writeSettings = DURABLE_COMMIT + " IS NOT NULL AND set_config('lock_timeout', '" + this.takeOverWaitMillis
				+ "ms', true) IS NOT NULL";
	}

	/**
	 * Runs a statement; a failure becomes a {@link StoreException}, retryable when it may
	 * pass on its own. After a retryable failure (a lost connection, a failover, a
	 * restart), the next call reads the server's durability first, as the startup did: a
	 * server that took over and cannot keep epochs from repeating (a standby, commits
	 * acknowledged before they are durable) fails every call, naming the fix, until it
	 * can.
	 */
	<T> T call(String what, Supplier<T> statement) {
		try {
			if (this.recheck) {
				recheckDurability();
			}
			return statement.get();
		}
		catch (DataAccessException ex) {
			Throwable cause = ex.getMostSpecificCause();
			String why = (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName();
			if (cause instanceof SQLException sql && READ_ONLY.equals(sql.getSQLState())) {
				// a standby, or a primary turned read-only: retried, as a failover may
				// promote it or another
				throw new StoreException("PostgreSQL: could not " + what + ": the server is read-only (" + why
						+ "): a standby, or default_transaction_read_only; point the store at the primary "
						+ "(targetServerType=primary in a URL that lists several hosts)", ex, true);
			}
			if (ex instanceof SQLWarningException unconfirmed) {
				// committed on this server, perhaps on no other: never taken as done
				this.recheck = true;
				throw new StoreException("PostgreSQL: could not " + what + ": the outcome is unknown, the server did "
						+ "not confirm the write as replicated (" + unconfirmed.getSQLWarning().getMessage() + ")", ex,
						false);
			}
			boolean retryable = ex instanceof TransientDataAccessException
					|| ex instanceof RecoverableDataAccessException || ex instanceof DataAccessResourceFailureException;
			this.recheck |= retryable;
			throw new StoreException("PostgreSQL: could not " + what + ": " + why, ex, retryable);
		}
	}

	private void recheckDurability() {
		Durability.Verdict verdict = Durability.read(this.jdbc).verdict();
		if (verdict instanceof Durability.Unsafe unsafe) {
			throw new StoreException("PostgreSQL, reached again: " + unsafe.message(),
					new IllegalStateException(unsafe.message()), true);
		}
		if (verdict instanceof Durability.Doubtful doubtful) {
			LoggerFactory.getLogger(JdbcMembershipStore.class)
				.warn("PostgreSQL, reached again: {}", doubtful.message());
		}
		this.recheck = false;
	}

	static @Nullable OffsetDateTime timestamp(@Nullable Instant instant) {
		return (instant != null) ? OffsetDateTime.ofInstant(millis(instant), ZoneOffset.UTC) : null;
	}

	static @Nullable Instant instant(ResultSet rs, String column) throws SQLException {
		OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
		return (value != null) ? value.toInstant() : null;
	}

	static Instant millis(Instant instant) {
		return Instant.ofEpochMilli(instant.toEpochMilli());
	}

	static Array texts(Connection connection, Collection<String> values) throws SQLException {
		return connection.createArrayOf("text", values.toArray());
	}

	static Array longs(Connection connection, Collection<Long> values) throws SQLException {
		return connection.createArrayOf("bigint", values.toArray());
	}

}
