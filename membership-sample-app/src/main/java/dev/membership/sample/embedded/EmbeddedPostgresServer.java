package dev.membership.sample.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The embedded PostgreSQL of this process (a real server, run from binaries that come in
 * a Maven artifact), or a handle on one another sample process already runs on the port.
 * Stops last, after membership has released its leases; its data directory survives, so a
 * restart on the same directory finds the same data.
 */
public final class EmbeddedPostgresServer extends EmbeddedDatabase {

	private final @Nullable EmbeddedPostgres server;

	private EmbeddedPostgresServer(@Nullable EmbeddedPostgres server, String description) {
		super(description);
		this.server = server;
	}

	static EmbeddedPostgresServer startOrJoin(int port, String directory, Log log) {
		if (accepts(port)) {
			log.info("Port 127.0.0.1:" + port + " is taken: joining the embedded PostgreSQL already running there");
			return new EmbeddedPostgresServer(null, "127.0.0.1:" + port + " (joined)");
		}
		File data = new File(directory).getAbsoluteFile();
		data.getParentFile().mkdirs();
		try {
			EmbeddedPostgres server = EmbeddedPostgres.builder()
				.setPort(port)
				.setDataDirectory(data)
				.setCleanDataDirectory(false)
				.setServerConfig("listen_addresses", "127.0.0.1")
				// the library turns it off for speed; membership's store refuses that (a
				// crash may lose a lease)
				.setServerConfig("synchronous_commit", "on")
				.setServerConfig("max_connections", "200")
				.start();
			log.info("Started the embedded PostgreSQL on 127.0.0.1:" + port + ", data under " + data);
			return new EmbeddedPostgresServer(server, "PostgreSQL 127.0.0.1:" + port);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start the embedded PostgreSQL on port " + port, ex);
		}
	}

	@Override
	void shutdown() {
		if (this.server != null) {
			try {
				this.server.close(); // pg_ctl stop: a clean shutdown, its data kept
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

}
