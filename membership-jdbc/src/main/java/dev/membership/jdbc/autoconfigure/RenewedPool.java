package dev.membership.jdbc.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.function.Supplier;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.springframework.jdbc.datasource.AbstractDataSource;

/**
 * A HikariCP pool of the store's own, made anew when a borrow timed out with no
 * connection in it at all (the database refused or did not answer every attempt). While
 * the database refuses connections, HikariCP's connection creator waits twice as long
 * before each attempt, up to 5 s: a pool that lived through an outage of a few seconds
 * would connect again only up to 5 s after the database is back, and the node would lead
 * nothing meanwhile. A new pool tries at once. The pool it replaces, which had no
 * connection to lose, is closed on a thread of its own (closing waits for its creator).
 */
final class RenewedPool extends AbstractDataSource implements AutoCloseable {

	private final Supplier<HikariDataSource> make;

	private volatile HikariDataSource pool;

	private volatile boolean closed;

	RenewedPool(Supplier<HikariDataSource> make) {
		this.make = make;
		this.pool = make.get();
	}

	@Override
	public Connection getConnection() throws SQLException {
		HikariDataSource current = this.pool;
		try {
			return current.getConnection();
		}
		catch (SQLTransientConnectionException ex) {
			renew(current);
			throw ex;
		}
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		throw new SQLException("The membership store's pool connects as its configured user only");
	}

	/** The pool borrows come from now (for tests). */
	HikariDataSource current() {
		return this.pool;
	}

	private synchronized void renew(HikariDataSource failed) {
		HikariPoolMXBean state = failed.getHikariPoolMXBean();
		// a pool that holds a connection (busy elsewhere) is only exhausted: kept
		if (this.closed || this.pool != failed || state == null || state.getTotalConnections() > 0) {
			return;
		}
		this.pool = this.make.get();
		Thread retire = new Thread(failed::close, "membership-pool-retired");
		retire.setDaemon(true);
		retire.start();
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		this.pool.close();
	}

}
