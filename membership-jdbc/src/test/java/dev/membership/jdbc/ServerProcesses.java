package dev.membership.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.jdbc.core.simple.JdbcClient;

import static org.awaitility.Awaitility.await;

/**
 * The PostgreSQL server's processes (the postmaster and every process it forked), frozen
 * with {@code SIGSTOP} and resumed with {@code SIGCONT}, as a VM paused by its host or a
 * server stuck in I/O would look to its clients; and the server restarted.
 */
public final class ServerProcesses {

	/** A word of {@code postmaster.opts}: quoted, or not. */
	private static final Pattern TOKEN = Pattern.compile("\"([^\"]*)\"|(\\S+)");

	private final long postmaster;

	private final String dataDirectory;

	private List<Long> frozen = List.of();

	public ServerProcesses(JdbcClient admin) {
		String dataDirectory = admin.sql("SELECT current_setting('data_directory')").query(String.class).single();
		this.dataDirectory = dataDirectory;
		try {
			// postmaster.pid: the postmaster's process id on its first line
			this.postmaster = Long
				.parseLong(Files.readAllLines(Path.of(dataDirectory, "postmaster.pid")).get(0).trim());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		if (ProcessHandle.of(this.postmaster).isEmpty()) {
			throw new IllegalStateException(
					"No process " + this.postmaster + " (the postmaster of " + dataDirectory + ") is visible here");
		}
	}

	public void freeze() {
		List<Long> pids = new ArrayList<>();
		pids.add(this.postmaster);
		ProcessHandle.of(this.postmaster).orElseThrow().descendants().forEach((p) -> pids.add(p.pid()));
		signal("-STOP", pids);
		this.frozen = pids;
	}

	public void resume() {
		if (!this.frozen.isEmpty()) {
			signal("-CONT", this.frozen);
			this.frozen = List.of();
		}
	}

	/**
	 * Restarts the server as {@code pg_ctl restart -m mode} would ({@code fast}:
	 * {@code SIGINT}, sessions ended and a checkpoint; {@code immediate}:
	 * {@code SIGQUIT}, every process killed and crash recovery at the start), with the
	 * command line it was started with ({@code postmaster.opts}); by hand, as
	 * {@code pg_ctl} refuses to run as root.
	 */
	public void restart(String mode) {
		stop(mode);
		start(this.dataDirectory, null);
	}

	/**
	 * Stops the server ({@code fast} or {@code immediate}, as {@link #restart}) and waits
	 * for it to exit.
	 */
	public void stop(String mode) {
		signal("fast".equals(mode) ? "-INT" : "-QUIT", List.of(this.postmaster));
		ProcessHandle.of(this.postmaster).ifPresent((p) -> p.onExit().orTimeout(60, TimeUnit.SECONDS).join());
	}

	/**
	 * Starts a server on {@code dataDirectory} (this one's, or a copy of it) with this
	 * server's command line, on {@code port} when given; returns its postmaster.
	 */
	public Process start(String dataDirectory, Integer port) {
		try {
			// as root, the way the embedded server started it: in a user namespace of its
			// own, where it is not root
			List<String> command = new ArrayList<>(isRoot() ? List.of("unshare", "-U") : List.of());
			Matcher token = TOKEN.matcher(Files.readString(Path.of(this.dataDirectory, "postmaster.opts")).trim());
			String previous = "";
			while (token.find()) {
				String word = (token.group(1) != null) ? token.group(1) : token.group(2);
				if ("-D".equals(previous)) {
					word = dataDirectory;
				}
				else if ("-p".equals(previous) && port != null) {
					word = port.toString();
				}
				command.add(word);
				previous = word;
			}
			return new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Starts {@code server}'s own server again, after a test stopped it: the embedded
	 * server's stop, after the class, needs it running.
	 */
	static void startAgain(EmbeddedPostgres server, ServerProcesses processes) {
		processes.start(processes.dataDirectory(), null);
		running(server);
	}

	/**
	 * {@code server}'s processes once it answers (a postmaster started again has a new
	 * process id).
	 */
	static ServerProcesses running(EmbeddedPostgres server) {
		JdbcClient client = JdbcClient.create(server.dataSource());
		await().atMost(Duration.ofSeconds(60))
			.ignoreExceptions()
			.until(() -> client.sql("SELECT 1").query(Integer.class).single() == 1);
		return new ServerProcesses(client);
	}

	/**
	 * A standby of this server in {@code copy}, named {@code name} to it: its data
	 * directory copied while it is stopped, then this server started again. Start it with
	 * {@link #start}.
	 */
	void copyAsStandby(Path copy, int port, String name) throws IOException, InterruptedException {
		stop("fast");
		Process cp = new ProcessBuilder("cp", "-a", this.dataDirectory, copy.toString()).inheritIO().start();
		if (!cp.waitFor(120, TimeUnit.SECONDS) || cp.exitValue() != 0) {
			throw new IllegalStateException("Could not copy " + this.dataDirectory);
		}
		start(this.dataDirectory, null);
		Files.writeString(copy.resolve("standby.signal"), "");
		Files.writeString(copy.resolve("postgresql.auto.conf"),
				"primary_conninfo = 'host=127.0.0.1 port=" + port + " user=postgres application_name=" + name + "'\n",
				StandardOpenOption.APPEND);
	}

	/** The {@code postgres} database of the server on {@code port} of this host. */
	static javax.sql.DataSource dataSource(int port) {
		return new org.springframework.jdbc.datasource.DriverManagerDataSource(
				"jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=2", "postgres", "");
	}

	static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	public String dataDirectory() {
		return this.dataDirectory;
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static void signal(String signal, List<Long> pids) {
		List<String> command = new ArrayList<>(List.of("kill", signal));
		pids.forEach((pid) -> command.add(Long.toString(pid)));
		run(command);
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("Could not " + command);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not " + command, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
