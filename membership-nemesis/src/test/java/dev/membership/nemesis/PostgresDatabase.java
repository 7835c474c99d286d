package dev.membership.nemesis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/**
 * A real PostgreSQL server (the packaged sample's standalone embedded one), with a log of
 * every fenced write in commit order: a trigger on the sample's fenced tables appends
 * each write's target, fence and node in the write's own transaction, so the log holds
 * exactly the writes that committed, and two writes of one target in the order their row
 * lock let them commit.
 */
final class PostgresDatabase extends SampleDatabase {

	/** The sample's fenced tables, as the sample makes them, and the log. */
	private static final List<String> SCHEMA = List.of(
			"CREATE TABLE IF NOT EXISTS housekeeping_runs (id text PRIMARY KEY, node_id text, epoch bigint, "
					+ "started_at timestamptz, ended_at timestamptz, purged bigint, accepted boolean, error text)",
			"CREATE TABLE IF NOT EXISTS housekeeping_state (id text PRIMARY KEY, purged_before timestamptz, "
					+ "by_node text, fence bigint)",
			"CREATE TABLE IF NOT EXISTS tenant_runs (id text PRIMARY KEY, node_id text, partition integer, "
					+ "epoch bigint, started_at timestamptz, ended_at timestamptz, accepted boolean)",
			"CREATE TABLE IF NOT EXISTS tenant_checkpoints (id text PRIMARY KEY, rolled_up_at timestamptz, "
					+ "by_node text, fence bigint)",
			// written_at: the time the write put in its row, in microseconds, which names
			// it
			"CREATE TABLE IF NOT EXISTS nemesis_fence_log (id bigserial PRIMARY KEY, target text, fence bigint, "
					+ "by_node text, written_at bigint)",
			"CREATE OR REPLACE FUNCTION nemesis_log_fence() RETURNS trigger AS $$ BEGIN "
					+ "INSERT INTO nemesis_fence_log (target, fence, by_node, written_at) VALUES (TG_TABLE_NAME || '/' "
					+ "|| NEW.id, NEW.fence, NEW.by_node, (extract(epoch FROM (to_jsonb(NEW) ->> CASE TG_TABLE_NAME "
					+ "WHEN 'housekeeping_state' THEN 'purged_before' ELSE 'rolled_up_at' END)::timestamptz) "
					+ "* 1000000)::bigint); RETURN NEW; END $$ LANGUAGE plpgsql",
			"CREATE OR REPLACE TRIGGER nemesis_log AFTER INSERT OR UPDATE ON housekeeping_state "
					+ "FOR EACH ROW EXECUTE FUNCTION nemesis_log_fence()",
			"CREATE OR REPLACE TRIGGER nemesis_log AFTER INSERT OR UPDATE ON tenant_checkpoints "
					+ "FOR EACH ROW EXECUTE FUNCTION nemesis_log_fence()");

	/** The primary's data: the embedded server's, or the standby's it failed over to. */
	private Path data;

	/** The primary's port (the relay's target). */
	private int current;

	/** The server's command line, read before a restart. */
	private String options = "";

	/**
	 * The servers this run started (restarts, standbys), which the embedded one's owner
	 * does not know.
	 */
	private final List<Process> servers = new ArrayList<>();

	/** The synchronous standby made for a failover, while there is one. */
	private Standby standby;

	private int standbys;

	PostgresDatabase(Path jar, Path directory, Path logs, int port) throws IOException {
		super(jar, directory, logs, port,
				List.of("--spring.profiles.active=postgres", "--sample.embedded-postgres.standalone=true",
						"--sample.embedded-postgres.port=" + port,
						"--sample.embedded-postgres.directory=" + directory.resolve("data")));
		this.data = directory.resolve("data");
		this.current = port;
		try {
			await("PostgreSQL answers").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
				try (Connection c = connect(); Statement s = c.createStatement()) {
					for (String statement : SCHEMA) {
						s.execute(statement);
					}
				}
				return true;
			});
		}
		catch (RuntimeException ex) {
			closeQuietly();
			throw ex;
		}
	}

	@Override
	List<String> nodeArgs(String host, int port) {
		return List.of("--spring.profiles.active=postgres",
				"--spring.datasource.url=jdbc:postgresql://" + host + ":" + port + "/postgres",
				"--spring.datasource.username=postgres");
	}

	@Override
	void checkWrites(Checker checker) throws SQLException {
		List<Checker.Logged> log = log();
		if (checker.acked().isEmpty() && !log.isEmpty()) {
			checker.violations().add("journal: no node told of any of the " + log.size() + " accepted writes");
		}
		checker.writes(log, checker.acked());
	}

	@Override
	long fencedWrites() throws SQLException {
		return log().size();
	}

	Connection connect() throws SQLException {
		return connect(this.current);
	}

	/** The primary's port now. */
	int port() {
		return this.current;
	}

	/** The primary's data directory now. */
	Path data() {
		return this.data;
	}

	/** The fenced writes that committed, in commit order per target. */
	List<Checker.Logged> log() throws SQLException {
		return log(this.current);
	}

	static Connection connect(int port) throws SQLException {
		return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "");
	}

	/** The fenced writes that committed on the server at {@code port}. */
	static List<Checker.Logged> log(int port) throws SQLException {
		List<Checker.Logged> log = new ArrayList<>();
		try (Connection c = connect(port);
				Statement s = c.createStatement();
				ResultSet r = s
					.executeQuery("SELECT id, target, fence, by_node, written_at FROM nemesis_fence_log ORDER BY id")) {
			while (r.next()) {
				long at = r.getLong(5);
				log.add(new Checker.Logged(r.getLong(1), r.getString(2), r.getLong(3), r.getString(4),
						r.wasNull() ? null : at));
			}
		}
		return log;
	}

	/**
	 * The runs whose node was told that their fenced write was accepted, as the runs'
	 * table says: for a run whose journal did not tell (before it did).
	 */
	List<Checker.Acked> acknowledged() throws SQLException {
		return acknowledged(this.current);
	}

	/** ... on the server at {@code port}. */
	static List<Checker.Acked> acknowledged(int port) throws SQLException {
		List<Checker.Acked> acked = new ArrayList<>();
		try (Connection c = connect(port);
				Statement s = c.createStatement();
				ResultSet r = s.executeQuery("SELECT 'housekeeping_state/purge', epoch, node_id FROM housekeeping_runs "
						+ "WHERE accepted UNION ALL SELECT 'tenant_checkpoints/partition-' || partition, epoch, node_id "
						+ "FROM tenant_runs WHERE accepted")) {
			while (r.next()) {
				acked.add(new Checker.Acked(r.getString(1), r.getLong(2), r.getString(3)));
			}
		}
		return acked;
	}

	@Override
	long runs() throws SQLException {
		try (Connection c = connect();
				Statement s = c.createStatement();
				ResultSet r = s.executeQuery(
						"SELECT (SELECT count(*) FROM housekeeping_runs) + (SELECT count(*) FROM tenant_runs)")) {
			r.next();
			return r.getLong(1);
		}
	}

	/** Freezes ({@code STOP}) or thaws ({@code CONT}) the server and its backends. */
	@Override
	void signal(String signal) throws IOException {
		// the postmaster first: a backend it forks meanwhile is frozen with it
		Shell.run("kill", "-" + signal, postmaster());
		Shell.tryRun("pkill", "-" + signal, "-P", postmaster());
	}

	@Override
	java.util.Set<Fault> faults() {
		return java.util.EnumSet.allOf(Fault.class);
	}

	/**
	 * Stops the server as {@code pg_ctl stop -m fast} ({@code SIGINT}: sessions ended, a
	 * checkpoint) or {@code -m immediate} ({@code SIGQUIT}: every process killed, crash
	 * recovery at the next start) would, by hand: {@code pg_ctl} refuses root.
	 */
	@Override
	void stopServer(boolean immediate) throws IOException {
		this.options = Files.readString(this.data.resolve("postmaster.opts")).strip();
		ProcessHandle postmaster = ProcessHandle.of(Long.parseLong(postmaster())).orElseThrow();
		Shell.run("kill", immediate ? "-QUIT" : "-INT", Long.toString(postmaster.pid()));
		postmaster.onExit().orTimeout(60, java.util.concurrent.TimeUnit.SECONDS).join();
	}

	/**
	 * Starts the server again with the command line it was started with
	 * ({@code postmaster.opts}).
	 */
	@Override
	void startServer() throws IOException {
		this.servers.add(postmaster(this.options));
		await("PostgreSQL answers again").atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
			try (Connection c = connect(); Statement s = c.createStatement()) {
				return s.execute("SELECT 1");
			}
		});
	}

	/**
	 * Starts a server with {@code options} (a {@code postmaster.opts}: its command line)
	 * as the embedded server did as root: in a user namespace of its own, where it is not
	 * root.
	 */
	static Process postmaster(String options) throws IOException {
		List<String> command = new ArrayList<>(List.of("unshare", "-U"));
		java.util.regex.Matcher word = java.util.regex.Pattern.compile("\"([^\"]*)\"|(\\S+)").matcher(options);
		while (word.find()) {
			command.add((word.group(1) != null) ? word.group(1) : word.group(2));
		}
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
	}

	/**
	 * Stops a server we started ({@code SIGINT}: fast; {@code SIGTERM} would wait for
	 * every session), killed if it did not exit within 30 s.
	 */
	static void stop(ProcessHandle server) {
		Shell.tryRun("kill", "-INT", Long.toString(server.pid()));
		try {
			server.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			server.destroyForcibly();
		}
	}

	/** A synchronous standby, streaming: the primary waits for it from now on. */
	@Override
	void standbyReady() throws Exception {
		this.standby = Standby.of(this, this.directory.resolve("standby-" + (++this.standbys)));
		this.servers.add(this.standby.process);
	}

	/** The standby stops acknowledging ({@code STOP}), or goes on ({@code CONT}). */
	@Override
	void standbySignal(String signal) {
		if (this.standby != null) {
			this.standby.signal(signal);
		}
	}

	/**
	 * The primary crashes ({@code SIGQUIT}), the standby is promoted, and the relay sends
	 * the nodes to it: it is the primary from now on (its data, its port).
	 */
	@Override
	void failOver(Forwarder forwarder) throws Exception {
		Standby promoted = this.standby;
		if (promoted == null) {
			return; // none was made: nothing to fail over to
		}
		this.standby = null;
		stopServer(true);
		promoted.promote();
		this.data = promoted.data;
		this.current = promoted.port;
		forwarder.retarget(promoted.port);
	}

	@Override
	List<ProcessHandle> processes() {
		List<ProcessHandle> all = new ArrayList<>(super.processes());
		this.servers.forEach((server) -> all.add(server.toHandle()));
		return all;
	}

	private String postmaster() throws IOException {
		return Files.readAllLines(this.data.resolve("postmaster.pid")).get(0).strip();
	}

	@Override
	public void close() throws InterruptedException {
		try {
			// never left frozen by a run that failed
			signal("CONT");
		}
		catch (IOException | RuntimeException ex) {
			// not running
		}
		standbySignal("CONT");
		this.servers.forEach((server) -> stop(server.toHandle()));
		super.close();
	}

}
