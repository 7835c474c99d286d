package dev.membership.sample.embedded;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import org.apache.commons.logging.Log;

import org.springframework.context.SmartLifecycle;

/**
 * The embedded database of this process, or a handle on one another sample process already runs on the port. Stops
 * last, after membership has released its leases.
 */
public final class EmbeddedMongoServer implements SmartLifecycle, EmbeddedDatabase {

	private final MongoServer server;

	private final String description;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private volatile boolean running = true;

	private EmbeddedMongoServer(MongoServer server, String description) {
		this.server = server;
		this.description = description;
	}

	static EmbeddedMongoServer startOrJoin(int port, String directory, Log log) {
		if (accepts(port)) {
			return joined(port, log);
		}
		File dir = new File(directory);
		dir.mkdirs();
		MongoServer server = new MongoServer(new H2Backend(new File(dir, "membership-sample.mv").getAbsolutePath()));
		try {
			server.bind("127.0.0.1", port);
			log.info("Started the embedded test database on 127.0.0.1:" + port);
			return new EmbeddedMongoServer(server, "127.0.0.1:" + port);
		}
		catch (Exception ex) { // Netty rethrows the checked BindException undeclared
			server.shutdownNow();
			return joined(port, log); // lost a race with another sample process
		}
	}

	private static EmbeddedMongoServer joined(int port, Log log) {
		log.info("Port 127.0.0.1:" + port + " is taken: joining the embedded test database already running there");
		return new EmbeddedMongoServer(null, "127.0.0.1:" + port + " (joined)");
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

	public boolean owned() {
		return this.server != null;
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
			this.server.shutdown(); // closes the H2 store cleanly, so its data survives a restart
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
