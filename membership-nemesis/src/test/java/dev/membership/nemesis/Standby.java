package dev.membership.nemesis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.awaitility.Awaitility.await;

/**
 * A synchronous standby of the run's PostgreSQL server, for a failover: a copy of the
 * primary's data (taken while it is stopped, as the primary's own binaries and command
 * line can copy it without a client of another version), streaming from it on a port of
 * its own, and the primary told to wait for it ({@code synchronous_standby_names = '*'}).
 * Frozen ({@code SIGSTOP}), it stops acknowledging, and every commit on the primary
 * waits; promoted, it serves what it acknowledged.
 */
final class Standby {

	private static final Pattern WORD = Pattern.compile("\"([^\"]*)\"|(\\S+)");

	final int port;

	final Path data;

	final Process process;

	private Standby(int port, Path data, Process process) {
		this.port = port;
		this.data = data;
		this.process = process;
	}

	/**
	 * A standby of the server on {@code primaryPort} with data {@code primaryData}, in
	 * {@code data}: the primary is stopped (fast), copied, told to replicate
	 * synchronously, and started again by {@code startPrimary}; returns once the standby
	 * is the primary's synchronous one.
	 */
	static Standby of(PostgresDatabase primary, Path data) throws Exception {
		String options = Files.readString(primary.data().resolve("postmaster.opts")).strip();
		primary.stopServer(false);
		Shell.run("rm", "-rf", data.toString());
		Shell.run("cp", "-a", primary.data().toString(), data.toString());
		Files.deleteIfExists(data.resolve("postmaster.pid"));
		Files.writeString(data.resolve("standby.signal"), "");
		int port = Ports.free();
		String auto = data.resolve("postgresql.auto.conf").toString();
		Files.writeString(Path.of(auto), Files.readString(Path.of(auto)) + "\nprimary_conninfo = 'host=127.0.0.1 port="
				+ primary.port() + " user=postgres application_name=standby'\n");
		// the primary waits for it from its start
		Path primaryAuto = primary.data().resolve("postgresql.auto.conf");
		Files.writeString(primaryAuto, Files.readString(primaryAuto) + "\nsynchronous_standby_names = '*'\n");
		primary.startServer();
		Process standby = PostgresDatabase.postmaster(options(options, data, port));
		Standby started = new Standby(port, data, standby);
		await("the standby is synchronous").atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
			try (Connection c = PostgresDatabase.connect(primary.port());
					Statement s = c.createStatement();
					ResultSet r = s
						.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'")) {
				r.next();
				return r.getLong(1) == 1;
			}
		});
		return started;
	}

	/** Stops acknowledging ({@code STOP}), or goes on ({@code CONT}). */
	void signal(String signal) {
		Shell.tryRun("kill", "-" + signal, Long.toString(this.process.pid()));
		Shell.tryRun("pkill", "-" + signal, "-P", Long.toString(this.process.pid()));
	}

	/**
	 * Promotes it (its primary gone): returns once it takes writes. Its own standby
	 * setting is cleared, so that it does not wait for a standby it has not got.
	 */
	void promote() {
		signal("CONT");
		await("the standby is promoted").atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
			try (Connection c = PostgresDatabase.connect(this.port); Statement s = c.createStatement()) {
				s.execute("SELECT pg_promote(true, 30)");
				s.execute("ALTER SYSTEM SET synchronous_standby_names = ''");
				s.execute("SELECT pg_reload_conf()");
				try (ResultSet r = s.executeQuery("SELECT pg_is_in_recovery()")) {
					r.next();
					return !r.getBoolean(1);
				}
			}
		});
	}

	/** {@code options} (a {@code postmaster.opts}) with {@code data} and {@code port}. */
	static String options(String options, Path data, int port) {
		StringBuilder out = new StringBuilder();
		Matcher word = WORD.matcher(options);
		String previous = "";
		while (word.find()) {
			String value = (word.group(1) != null) ? word.group(1) : word.group(2);
			if ("-D".equals(previous)) {
				value = data.toString();
			}
			else if ("-p".equals(previous)) {
				value = Integer.toString(port);
			}
			out.append('"').append(value).append("\" ");
			previous = value;
		}
		return out.toString().strip();
	}

}
