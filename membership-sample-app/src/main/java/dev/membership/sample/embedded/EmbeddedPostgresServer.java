package dev.membership.sample.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.springframework.context.SmartLifecycle;

/**
 * The embedded PostgreSQL of this process (a real server, run from binaries that come in a Maven artifact), or a
 * handle on one another sample process already runs on the port. Stops last, after membership has released its
 * leases; its data directory survives, so a restart on the same directory finds the same data.
 */
public final class EmbeddedPostgresServer implements SmartLifecycle, EmbeddedDatabase {

	private final EmbeddedPostgres server;

	private final String description;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private volatile boolean running = true;

	private EmbeddedPostgresServer(EmbeddedPostgres server, String description) {
		this.server = server;
		this.description = description;
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
				// the library turns it off for speed; membership's store refuses that (a crash may lose a lease)
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

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	public String description() {
		return this.description;
	}

	@Override
	public void awaitStop() throws InterruptedException {
		this.stopped.await();
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		if (this.server != null && this.stopped.getCount() > 0) {
			try {
				this.server.close(); // pg_ctl stop: a clean shutdown, its data kept
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		this.running = false;
		this.stopped.countDown();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return Integer.MIN_VALUE; // stops after everything that uses it
	}

}
