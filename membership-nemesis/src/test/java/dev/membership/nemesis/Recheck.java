package dev.membership.nemesis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.membership.nemesis.History.Event;
import dev.membership.nemesis.History.Kind;

import static org.awaitility.Awaitility.await;

/**
 * A finished run checked again from what it left, by today's checker: its
 * {@code history.txt} and, on PostgreSQL, its server's data (started again on it, on its
 * own port, for the log of fenced writes and the runs' acknowledgements). The MongoDB
 * stand-in kept its data in memory: only the beliefs are checked again.
 */
final class Recheck {

	private Recheck() {
	}

	/**
	 * Checks the run whose logs are in {@code logs}; returns the checker and its figures.
	 */
	static String run(Path logs) throws Exception {
		History history = History.parse(Files.readAllLines(logs.resolve("history.txt")));
		List<Event> events = history.events();
		Set<String> units = new TreeSet<>();
		events.stream().filter((e) -> e.kind() == Kind.BELIEVES).forEach((e) -> units.add(e.unit()));
		Checker checker = new Checker().beliefs(history, events.get(events.size() - 1).at(), units, Nemesis.BOUND);
		long writes = -1;
		Path data = logs.resolve("db").resolve("data");
		if (Files.exists(data.resolve("postmaster.opts"))) {
			String options = Files.readString(data.resolve("postmaster.opts")).strip();
			// on a port of its own (the last -p counts): never another server's data
			int p = Ports.free();
			Process server = PostgresDatabase.postmaster(options + " \"-p\" \"" + p + "\"");
			try {
				await("PostgreSQL on " + data).atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
					if (!server.isAlive()) {
						throw new IllegalStateException("PostgreSQL did not start on " + data);
					}
					try (java.sql.Connection c = PostgresDatabase.connect(p)) {
						return c.isValid(1);
					}
				});
				List<Checker.Logged> log = PostgresDatabase.log(p);
				// a run from before the journals told of writes: its runs' table
				checker.writes(log, checker.acked().isEmpty() ? PostgresDatabase.acknowledged(p) : checker.acked());
				writes = log.size();
			}
			finally {
				PostgresDatabase.stop(server.toHandle());
			}
		}
		StringBuilder table = new StringBuilder("rechecked ").append(logs).append('\n');
		table.append("| fault | longest without a believer, fault to next fault | after its heal |\n|---|---|---|\n");
		checker.longestDuring()
			.forEach((fault, during) -> table.append("| ")
				.append(fault)
				.append(" | ")
				.append(during.toMillis())
				.append(" ms | ")
				.append(checker.longestWithout().getOrDefault(fault, Duration.ZERO).toMillis())
				.append(" ms |\n"));
		table.append("units ").append(units.size()).append(", events ").append(events.size());
		table.append(", fenced writes ").append((writes < 0) ? "not kept (in memory)" : Long.toString(writes));
		table.append(", violations ").append(checker.violations().size()).append('\n');
		checker.violations().forEach((v) -> table.append("VIOLATION ").append(v).append('\n'));
		return table.toString();
	}

}
