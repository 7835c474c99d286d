package dev.membership.jdbc;

import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.SQLWarningException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The store's template, which takes a statement that ends with a warning of SQLSTATE
 * class {@code 01} as failed: its outcome is unknown. PostgreSQL answers a commit whose
 * wait for a synchronous standby was cancelled (by a query timeout, a
 * {@code statement_timeout} or a DBA's {@code pg_cancel_backend}) with the write
 * committed locally and the warning "canceling wait for synchronous replication due to
 * user request" (SQLSTATE {@code 01000}, "Synchronous Replication", 27.2.8): a failover
 * to that standby loses the write, so it must not count as done. Notices (a
 * {@code CREATE ... IF NOT EXISTS} that skipped, class {@code 42}) are not warnings of
 * that class and pass.
 */
final class ConfirmedWrites extends JdbcTemplate {

	/** SQLSTATE class {@code 01}: warning. */
	private static final String WARNING_CLASS = "01";

	ConfirmedWrites(DataSource dataSource) {
		super(dataSource);
	}

	@Override
	protected void handleWarnings(Statement statement) throws SQLException {
		check(statement.getWarnings());
		super.handleWarnings(statement);
	}

	/** Throws when {@code warnings} hold one of class {@code 01}. */
	static void check(@Nullable SQLWarning warnings) {
		for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
			String state = warning.getSQLState();
			if (state != null && state.startsWith(WARNING_CLASS)) {
				throw new SQLWarningException("The server did not confirm the statement: " + warning.getMessage(),
						warning);
			}
		}
	}

}
