package dev.membership.nemesis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * The database of a run: the packaged sample app in its standalone mode, serving a
 * database on 127.0.0.1 in the host's network namespace (the nodes reach it through the
 * relay). What a run checks of the writes, and how the database is frozen, is each
 * database's own.
 */
abstract class SampleDatabase implements AutoCloseable {

	final int port;

	final Path directory;

	private final Process process;

	SampleDatabase(Path jar, Path directory, Path logs, int port, List<String> args) throws IOException {
		this.port = port;
		this.directory = directory;
		// a run of its own: nothing a run before it left
		if (Files.exists(directory)) {
			Shell.run("rm", "-rf", directory.toString());
		}
		Files.createDirectories(directory);
		List<String> command = new ArrayList<>(List.of(Nodes.java(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
				"-XX:+UseSerialGC", "-jar", jar.toString()));
		command.addAll(args);
		this.process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(logs.resolve("database.log").toFile())
			.start();
		try {
			await("the database on 127.0.0.1:" + port).atMost(Duration.ofSeconds(90)).until(() -> {
				if (!this.process.isAlive()) {
					throw new IllegalStateException("the database process exited: see " + logs.resolve("database.log"));
				}
				return accepts(port);
			});
		}
		catch (RuntimeException ex) {
			this.process.toHandle().destroyForcibly();
			throw ex;
		}
	}

	/** The process that serves the database. */
	ProcessHandle process() {
		return this.process.toHandle();
	}

	/** Every process that serves the database: for a shutdown hook of the harness. */
	List<ProcessHandle> processes() {
		return List.of(this.process.toHandle());
	}

	/** What a node is given to reach the database at {@code host}:{@code port}. */
	abstract List<String> nodeArgs(String host, int port);

	/** Checks the fenced writes into {@code checker}. */
	abstract void checkWrites(Checker checker) throws Exception;

	/** How many guarded runs the nodes recorded. */
	abstract long runs() throws Exception;

	/** How many fenced writes were checked. */
	abstract long fencedWrites() throws Exception;

	/** Freezes ({@code STOP}) or thaws ({@code CONT}) the database. */
	abstract void signal(String signal) throws IOException;

	/**
	 * The kinds of fault this database takes: all but a restart and a failover, unless it
	 * keeps its data across one and has standbys.
	 */
	java.util.Set<Fault> faults() {
		return java.util.EnumSet
			.complementOf(java.util.EnumSet.of(Fault.DATABASE_RESTART, Fault.SYNC_STANDBY_FAILOVER));
	}

	/** Makes a synchronous standby of the server, ready for a failover. */
	void standbyReady() throws Exception {
		throw new UnsupportedOperationException("this database has no standby");
	}

	/** The standby stops acknowledging ({@code STOP}), or goes on ({@code CONT}). */
	void standbySignal(String signal) {
		throw new UnsupportedOperationException("this database has no standby");
	}

	/** The server crashes and its standby takes over, on its own port. */
	void failOver(Forwarder forwarder) throws Exception {
		throw new UnsupportedOperationException("this database has no standby");
	}

	/**
	 * Stops the database's server ({@code immediate}: as a crash would), its data kept.
	 */
	void stopServer(boolean immediate) throws Exception {
		throw new UnsupportedOperationException("this database is not restarted: it keeps no data across a restart");
	}

	/** Starts the server stopped by {@link #stopServer} again, on its data. */
	void startServer() throws Exception {
		throw new UnsupportedOperationException("this database is not restarted: it keeps no data across a restart");
	}

	/** Closes, for a constructor that failed after the process started. */
	void closeQuietly() {
		try {
			close();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.process.toHandle().destroy();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			this.process.toHandle().destroyForcibly();
		}
	}

	static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
