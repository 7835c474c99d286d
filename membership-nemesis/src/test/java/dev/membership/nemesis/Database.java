package dev.membership.nemesis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A real PostgreSQL server (the packaged sample's standalone embedded one, in the host's
 * network namespace on 127.0.0.1), with a log of every fenced write in commit order: a
 * trigger on the sample's fenced tables appends each write's target, fence and node in
 * the write's own transaction, so the log holds exactly the writes that committed, and
 * two writes of one target in the order their row lock let them commit.
 */
final class Database implements AutoCloseable {

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
			"CREATE TABLE IF NOT EXISTS nemesis_fence_log (id bigserial PRIMARY KEY, target text, fence bigint, "
					+ "by_node text)",
			"CREATE OR REPLACE FUNCTION nemesis_log_fence() RETURNS trigger AS $$ BEGIN "
					+ "INSERT INTO nemesis_fence_log (target, fence, by_node) VALUES (TG_TABLE_NAME || '/' || NEW.id, "
					+ "NEW.fence, NEW.by_node); RETURN NEW; END $$ LANGUAGE plpgsql",
			"CREATE OR REPLACE TRIGGER nemesis_log AFTER INSERT OR UPDATE ON housekeeping_state "
					+ "FOR EACH ROW EXECUTE FUNCTION nemesis_log_fence()",
			"CREATE OR REPLACE TRIGGER nemesis_log AFTER INSERT OR UPDATE ON tenant_checkpoints "
					+ "FOR EACH ROW EXECUTE FUNCTION nemesis_log_fence()");

	final int port;

	private final Path data;

	private final Process process;

	Database(Path jar, Path directory, Path logs, int port) throws IOException, SQLException {
		this.port = port;
		this.data = directory.resolve("data");
		Files.createDirectories(directory);
		this.process = new ProcessBuilder(Nodes.java(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
				"-jar", jar.toString(), "--spring.profiles.active=postgres",
				"--sample.embedded-postgres.standalone=true", "--sample.embedded-postgres.port=" + port,
				"--sample.embedded-postgres.directory=" + this.data)
			.redirectErrorStream(true)
			.redirectOutput(logs.resolve("database.log").toFile())
			.start();
		await("PostgreSQL on 127.0.0.1:" + port).atMost(Duration.ofSeconds(90)).until(() -> {
			if (!this.process.isAlive()) {
				throw new IllegalStateException("the database process exited: see " + logs.resolve("database.log"));
			}
			return accepts(port);
		});
		await("PostgreSQL answers").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
			try (Connection c = connect(); Statement s = c.createStatement()) {
				for (String statement : SCHEMA) {
					s.execute(statement);
				}
			}
			return true;
		});
	}

	Connection connect() throws SQLException {
		return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + this.port + "/postgres", "postgres", "");
	}

	/** The fenced writes that committed, in commit order per target. */
	List<Checker.Logged> log() throws SQLException {
		List<Checker.Logged> log = new ArrayList<>();
		try (Connection c = connect();
				Statement s = c.createStatement();
				ResultSet r = s.executeQuery("SELECT id, target, fence, by_node FROM nemesis_fence_log ORDER BY id")) {
			while (r.next()) {
				log.add(new Checker.Logged(r.getLong(1), r.getString(2), r.getLong(3), r.getString(4)));
			}
		}
		return log;
	}

	/** The runs whose node was told that their fenced write was accepted. */
	List<Checker.Acked> acknowledged() throws SQLException {
		List<Checker.Acked> acked = new ArrayList<>();
		try (Connection c = connect();
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

	/** How many guarded runs the nodes recorded. */
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
	void signal(String signal) throws IOException {
		String postmaster = Files.readAllLines(this.data.resolve("postmaster.pid")).get(0).strip();
		Shell.tryRun("pkill", "-" + signal, "-P", postmaster);
		Shell.run("kill", "-" + signal, postmaster);
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
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
