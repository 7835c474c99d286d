package dev.membership.sample.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;

import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * The sample's embedded database of this process (MongoDB's stand-in or PostgreSQL), or a
 * handle on one another sample process already runs on the port. Stops last, after
 * membership has released its leases.
 */
abstract class EmbeddedDatabase implements SmartLifecycle {

	private final String description;

	private final CountDownLatch stopped = new CountDownLatch(1);

	private volatile boolean running = true;

	EmbeddedDatabase(String description) {
		this.description = description;
	}

	/**
	 * Stops the server this process runs, cleanly, so that its data survives a restart;
	 * nothing for a handle.
	 */
	abstract void shutdown();

	static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	String description() {
		return this.description;
	}

	/** Blocks until this process stops the database. */
	void awaitStop() throws InterruptedException {
		this.stopped.await();
	}

	/**
	 * What stops the database when the application fails to start, so that the process
	 * exits.
	 */
	ApplicationListener<ApplicationFailedEvent> stopOnFailedStart() {
		return new StopOnFailedStart(this);
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public synchronized void stop() {
		if (this.stopped.getCount() > 0) {
			shutdown();
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

	private static final class StopOnFailedStart implements ApplicationListener<ApplicationFailedEvent> {

		private final EmbeddedDatabase database;

		StopOnFailedStart(EmbeddedDatabase database) {
			this.database = database;
		}

		@Override
		public void onApplicationEvent(ApplicationFailedEvent event) {
			this.database.stop();
		}

	}

}
