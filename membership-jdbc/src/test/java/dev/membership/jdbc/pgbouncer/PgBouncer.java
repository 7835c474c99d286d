package dev.membership.jdbc.pgbouncer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code pgbouncer} in front of a PostgreSQL server, in transaction mode with
 * fewer server connections than clients, so that consecutive transactions of one client
 * land on different server connections: a process of its own on a free loopback port, as
 * root under the {@code postgres} user (PgBouncer refuses root). {@link #available()}
 * says whether the package is installed.
 */
public final class PgBouncer implements AutoCloseable {

	private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

	private final Process process;

	private final int port;

	private final Path directory;

	private PgBouncer(Process process, int port, Path directory) {
		this.process = process;
		this.port = port;
		this.directory = directory;
	}

	public static boolean available() {
		return Files.isExecutable(BINARY);
	}

	/**
	 * Starts it before the server on {@code postgresPort}, with {@code serverConnections}
	 * server connections.
	 */
	public static PgBouncer start(int postgresPort, int serverConnections) throws IOException, InterruptedException {
		return start(postgresPort, serverConnections, "transaction");
	}

	/**
	 * As {@link #start(int, int)}, in pooling {@code mode}, with {@code settings} (lines
	 * of its {@code [pgbouncer]} section) added.
	 */
	public static PgBouncer start(int postgresPort, int serverConnections, String mode, String... settings)
			throws IOException, InterruptedException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		Path directory = Files.createTempDirectory("pgbouncer",
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
		Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
		Path users = directory.resolve("users.txt");
		Files.writeString(users, "\"postgres\" \"\"\n");
		Path ini = directory.resolve("pgbouncer.ini");
		Files.writeString(ini, String.join("\n", "[databases]",
				"postgres = host=127.0.0.1 port=" + postgresPort + " dbname=postgres user=postgres", "[pgbouncer]",
				"listen_addr = 127.0.0.1", "listen_port = " + port, "unix_socket_dir =", "auth_type = trust",
				"auth_file = " + users, "pool_mode = " + mode, "max_client_conn = 200",
				"default_pool_size = " + serverConnections, "min_pool_size = 0",
				// pgjdbc sends it at startup; JDBC setups list it
				"ignore_startup_parameters = extra_float_digits", "logfile = " + directory.resolve("pgbouncer.log"),
				"pidfile = " + directory.resolve("pgbouncer.pid"), String.join("\n", settings), ""));
		for (Path file : List.of(users, ini)) {
			Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
		}
		List<String> command = new ArrayList<>();
		if ("root".equals(System.getProperty("user.name"))) {
			command.addAll(List.of("runuser", "-u", "postgres", "--"));
		}
		command.addAll(List.of(BINARY.toString(), ini.toString()));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(directory.resolve("stdout.log").toFile())
			.start();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() < deadline) {
			try (Socket probe = new Socket("127.0.0.1", port)) {
				return new PgBouncer(process, port, directory);
			}
			catch (IOException notYet) {
				if (!process.isAlive()) {
					break;
				}
				Thread.sleep(50); // a bounded poll for its port
			}
		}
		process.destroyForcibly();
		throw new IllegalStateException(
				"PgBouncer did not start: " + Files.readString(directory.resolve("stdout.log")) + log(directory));
	}

	private static String log(Path directory) throws IOException {
		Path log = directory.resolve("pgbouncer.log");
		return Files.exists(log) ? Files.readString(log) : "";
	}

	/** A JDBC URL to it, with no flags: as an application would write it. */
	public String url() {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres";
	}

	/** Its log so far. */
	public String log() {
		try {
			return log(this.directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public void close() throws InterruptedException {
		try { // itself, by its pid: the signal to runuser may not reach it
			long pid = Long.parseLong(Files.readString(this.directory.resolve("pgbouncer.pid")).trim());
			ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
		}
		catch (IOException | NumberFormatException ex) {
			// not written: it never started
		}
		this.process.destroy();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
		}
	}

}
