package dev.membership.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;

import dev.membership.leadership.FencedOutException;

/**
 * The transaction fence: one statement, inside the caller's transaction, that holds the
 * lease's term row {@code FOR SHARE} until the transaction ends and checks that the term
 * is still the caller's.
 * <ul>
 * <li>A take-over updates that row in the transaction that starts its term, so it waits
 * for every open transaction fenced by the older term (or, past a quarter of its
 * operation timeout, ends them: see {@code TakeOvers}); each of them commits before the
 * newer term begins, or not at all. Commit order follows epoch order.</li>
 * <li>A transaction fenced after the take-over reads the newer epoch (READ COMMITTED
 * re-reads a row it waited for; REPEATABLE READ and SERIALIZABLE fail with a
 * serialization error instead) and is fenced out.</li>
 * <li>Renewals never touch the row, so a fenced transaction never delays a renewal, nor a
 * renewal a fence.</li>
 * </ul>
 * The statement also takes a shared advisory lock of the term, which names the
 * transaction's backend in {@code pg_locks} so that a take-over can end it.
 */
final class TransactionFence {

	private TransactionFence() {
	}

	/**
	 * The advisory lock's key, as text hashed by {@code hashtextextended(key, 0)}: the
	 * terms table and the lease.
	 */
	static String key(String termsTable, String lease) {
		return termsTable + ":" + lease;
	}

	static void join(DataSource dataSource, String termsTable, String lease, String group, long epoch) {
		Connection connection = DataSourceUtils.getConnection(dataSource);
		try {
			if (!DataSourceUtils.isConnectionTransactional(connection, dataSource) || connection.getAutoCommit()) {
				throw new IllegalStateException("A transaction fence needs a Spring transaction on this DataSource "
						+ "(@Transactional, or a TransactionTemplate, with its transaction manager on the same "
						+ "DataSource): outside one it would protect nothing. For a single statement, use a row "
						+ "fence (update, upsert, or assignment() and condition())");
			}
			long current = current(connection, termsTable, lease, group, epoch);
			if (current != epoch) {
				throw new FencedOutException(group, epoch,
						(current > epoch) ? OptionalLong.of(current) : OptionalLong.empty(),
						"Transaction fenced out: the current term of '" + lease + "' has epoch " + current + ", not "
								+ epoch + "; this term is over, roll the transaction back");
			}
		}
		catch (SQLException ex) {
			throw new SQLExceptionSubclassTranslator().translate("transaction fence of '" + lease + "'", null, ex);
		}
		finally {
			DataSourceUtils.releaseConnection(connection, dataSource);
		}
	}

	private static long current(Connection connection, String termsTable, String lease, String group, long epoch)
			throws SQLException {
		try (PreparedStatement ps = connection.prepareStatement("SELECT t.epoch, pg_advisory_xact_lock_shared("
				+ "hashtextextended(?, 0))::text AS held FROM " + termsTable + " t WHERE t.name = ? FOR SHARE OF t")) {
			ps.setString(1, key(termsTable, lease));
			ps.setString(2, lease);
			try (ResultSet rs = ps.executeQuery()) {
				if (!rs.next()) {
					throw new FencedOutException(group, epoch, OptionalLong.empty(), "Transaction fenced out: '" + lease
							+ "' has no term in " + termsTable + " (its term began before the store wrote "
							+ "terms, or the store's tables have another prefix: JdbcEpochFence.tablePrefix); roll "
							+ "the transaction back");
				}
				return rs.getLong("epoch");
			}
		}
	}

}
