package dev.membership.jdbc;

import java.util.Locale;

import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Whether the server the store reached can keep its epochs from repeating, from what any
 * role can read of it: a lease write must be durable before it is acknowledged, and,
 * where replicas stream, on a replica that a failover can promote, or a promoted replica
 * may lack the last take-overs: the holder of a lost term and its successor then both
 * lead until the lost term's lease runs out. (Epochs never repeat, whatever the failover:
 * {@link LeaseRows} bases them on the server's WAL timeline.)
 *
 * @param synchronousCommit {@code SHOW synchronous_commit}
 * @param synchronousStandbys {@code SHOW synchronous_standby_names} (empty: none)
 * @param streamingReplicas the rows of {@code pg_stat_replication}
 * @param inRecovery {@code pg_is_in_recovery()}: a standby
 * @param readOnly {@code SHOW default_transaction_read_only}
 */
record Durability(String synchronousCommit, String synchronousStandbys, long streamingReplicas, boolean inRecovery,
		boolean readOnly) {

	/** What the store makes of it. */
	sealed interface Verdict permits Safe, Unsafe, Doubtful {

	}

	/** Nothing to say. */
	record Safe() implements Verdict {
	}

	/** The startup fails: the message names the fix. */
	record Unsafe(String message) implements Verdict {
	}

	/**
	 * The startup goes on, and the log says why the epochs may repeat after a failover,
	 * and the fix.
	 */
	record Doubtful(String message) implements Verdict {
	}

	/**
	 * What any role can read of the server's durability and replication, in one
	 * statement.
	 */
	static Durability read(JdbcTemplate jdbc) {
		return jdbc.queryForObject("SELECT current_setting('synchronous_commit') AS sc, "
				+ "current_setting('synchronous_standby_names') AS ssn, (SELECT count(*) FROM pg_stat_replication r "
				+ "LEFT JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_type IS DISTINCT FROM "
				+ "'logical') AS replicas, pg_is_in_recovery() AS recovery, "
				+ "current_setting('default_transaction_read_only') AS ro",
				(rs, i) -> new Durability(rs.getString("sc"), rs.getString("ssn"), rs.getLong("replicas"),
						rs.getBoolean("recovery"), on(rs.getString("ro"))));
	}

	Verdict verdict() {
		if (this.inRecovery || this.readOnly) {
			return new Unsafe("The membership database is "
					+ (this.inRecovery ? "a standby (pg_is_in_recovery())"
							: "read-only (default_transaction_read_only = on)")
					+ ": the store cannot write a lease there. "
					+ "Point the store at the primary (for a list of hosts, add targetServerType=primary to the JDBC "
					+ "URL), or clear default_transaction_read_only for its role or database");
		}
		String commit = this.synchronousCommit.toLowerCase(Locale.ROOT);
		if ("off".equals(commit)) {
			return new Unsafe("PostgreSQL's synchronous_commit is off for this DataSource's sessions: a crash of the "
					+ "server can lose a lease it acknowledged, and two nodes then lead with the same epoch. Set "
					+ "synchronous_commit to on (or remote_apply with synchronous standbys) for the membership "
					+ "DataSource's role or database");
		}
		if (this.streamingReplicas == 0) {
			// one server: local is on, and a failover has no replica to promote
			return new Safe();
		}
		if ("local".equals(commit)) {
			return new Unsafe("PostgreSQL's synchronous_commit is local for this DataSource's sessions while "
					+ this.streamingReplicas + " replica(s) stream: a lease write is acknowledged before any replica "
					+ "has it, and a failover can lose a take-over: two nodes then lead until its lease runs out. Set "
					+ "synchronous_commit to on, "
					+ "remote_write or remote_apply for the membership DataSource's role or database");
		}
		if (this.synchronousStandbys.isBlank()) {
			return new Doubtful(this.streamingReplicas + " replica(s) stream from the membership database and none "
					+ "is synchronous (synchronous_standby_names is empty): a failover to one of them can lose the "
					+ "last take-overs, and then the holder of a lost term and its successor both lead until the lost "
					+ "term's lease runs out (epochs still never repeat: the promoted server's are larger, so fenced "
					+ "writes keep the newer term's data). Use "
					+ "synchronous replication for this database (Patroni: synchronous_mode with "
					+ "synchronous_mode_strict), or fail over only to a replica that loses no commit");
		}
		return new Safe();
	}

	static boolean on(@Nullable String setting) {
		return setting != null && ("on".equalsIgnoreCase(setting) || "true".equalsIgnoreCase(setting));
	}

}
