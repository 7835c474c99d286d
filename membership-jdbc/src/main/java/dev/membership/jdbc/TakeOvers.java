package dev.membership.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.RowMapper;

import dev.membership.spi.LeaseRecord;
import dev.membership.spi.StoreException;

/**
 * A lease's acquisition and the start of its term, in one transaction whose waits the
 * server bounds: the lease row and the term row ({@link TransactionFence}) change
 * together, and the term row's update waits for the older term's fenced transactions. A
 * wait past a quarter of the operation timeout ends those transactions (the lease they
 * ran under has expired, or its holder let it go) and tries once more; without the right
 * to end them ({@code pg_signal_backend}, or the same role), the take-over fails, is
 * retried next interval, and says why.
 */
final class TakeOvers {

	/** SQLSTATE {@code lock_not_available}: {@code lock_timeout} ran out. */
	private static final String LOCK_NOT_AVAILABLE = "55P03";

	private final Statements sql;

	private final String endStale;

	TakeOvers(Statements sql) {
		this.sql = sql;
		// the backends holding the term's shared advisory lock (only transaction fences
		// take it), while the lease is free for this take-over; each given the wait to go
		this.endStale = "SELECT count(*) FILTER (WHERE pg_terminate_backend(l.pid, ?)) AS ended FROM pg_locks l "
				+ "WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ShareLock' AND l.objsubid = 1 "
				+ "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
				+ "AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(?, 0) "
				+ "AND l.pid <> pg_backend_pid() AND EXISTS (SELECT 1 FROM " + sql.leases + " WHERE name = ? AND "
				+ "(expires_at < ?::timestamptz OR (node_id = ?::text AND epoch = ?::bigint)))";
	}

	/**
	 * Runs {@code statement} (which takes the lease and writes its term) in a
	 * transaction; when it waited too long for the older term's fenced transactions, ends
	 * them and runs it once more.
	 */
	Optional<LeaseRecord> acquire(String what, String lease, String statement, PreparedStatementSetter params,
			RowMapper<LeaseRecord> rows, Object expiredBefore, @Nullable String from, long fromEpoch) {
		return this.sql.call(what, () -> {
			try {
				return attempt(statement, params, rows);
			}
			catch (DataAccessException ex) {
				if (!lockNotAvailable(ex)) {
					throw ex;
				}
				long ended = endStale(lease, expiredBefore, from, fromEpoch);
				if (ended == 0) {
					throw new StoreException("PostgreSQL: could not " + what + ": waited " + this.sql.takeOverWaitMillis
							+ " ms for a lock on its lease or term row, held by another "
							+ "take-over or by a transaction of the older term", ex, true);
				}
				return attempt(statement, params, rows);
			}
		});
	}

	private Optional<LeaseRecord> attempt(String statement, PreparedStatementSetter params,
			RowMapper<LeaseRecord> rows) {
		return this.sql.jdbc.execute((ConnectionCallback<Optional<LeaseRecord>>) (connection) -> {
			boolean autoCommit = connection.getAutoCommit();
			Exception failure = null;
			connection.setAutoCommit(false);
			try {
				bound(connection);
				List<LeaseRecord> taken = new ArrayList<>(1);
				try (PreparedStatement ps = connection.prepareStatement(statement)) {
					ps.setQueryTimeout(this.sql.jdbc.getQueryTimeout());
					params.setValues(ps);
					try (ResultSet rs = ps.executeQuery()) {
						while (rs.next()) {
							taken.add(rows.mapRow(rs, taken.size()));
						}
					}
				}
				commit(connection);
				return taken.stream().findFirst();
			}
			catch (SQLException | RuntimeException ex) {
				failure = ex;
				try {
					connection.rollback();
				}
				catch (SQLException rollback) {
					ex.addSuppressed(rollback);
				}
				throw ex;
			}
			finally {
				restore(connection, autoCommit, failure);
			}
		});
	}

	/**
	 * Commits as a statement, bounded as every other ({@link Connection#commit()} has no
	 * query timeout: a commit that waits for a synchronous standby that is gone would
	 * wait for ever); a commit whose wait was cancelled ended with a warning, and its
	 * outcome is unknown ({@link ConfirmedWrites}).
	 */
	private void commit(Connection connection) throws SQLException {
		try (PreparedStatement commit = connection.prepareStatement("COMMIT")) {
			commit.setQueryTimeout(this.sql.jdbc.getQueryTimeout());
			commit.execute();
			ConfirmedWrites.check(commit.getWarnings());
		}
	}

	/**
	 * Sets the connection's auto-commit back; where that fails too (a connection the
	 * server closed), the first failure is the one the caller gets, and this one is kept
	 * beside it.
	 */
	private static void restore(Connection connection, boolean autoCommit, @Nullable Exception failure)
			throws SQLException {
		try {
			connection.setAutoCommit(autoCommit);
		}
		catch (SQLException ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
	}

	/**
	 * The transaction's lock waits and statements bounded on the server, in milliseconds,
	 * and its commit {@linkplain Statements#DURABLE_COMMIT durable}.
	 */
	private void bound(Connection connection) throws SQLException {
		try (PreparedStatement ps = connection
			.prepareStatement("SELECT set_config('lock_timeout', ?, true), set_config('statement_timeout', ?, true), "
					+ Statements.DURABLE_COMMIT)) {
			ps.setString(1, this.sql.takeOverWaitMillis + "ms");
			ps.setString(2, this.sql.operationMillis + "ms");
			ps.execute();
		}
	}

	private long endStale(String lease, Object expiredBefore, @Nullable String from, long fromEpoch) {
		Long ended = this.sql.jdbc.queryForObject(this.endStale, Long.class, this.sql.takeOverWaitMillis,
				TransactionFence.key(this.sql.terms, lease), lease, expiredBefore, from, fromEpoch);
		return (ended != null) ? ended : 0;
	}

	private static boolean lockNotAvailable(DataAccessException ex) {
		return ex.getMostSpecificCause() instanceof SQLException sql && LOCK_NOT_AVAILABLE.equals(sql.getSQLState());
	}

}
