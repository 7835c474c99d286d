package dev.membership.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;
import dev.membership.spi.RunRings;

import static dev.membership.jdbc.Statements.instant;
import static dev.membership.jdbc.Statements.timestamp;

/**
 * The run history in PostgreSQL ({@code membership_runs}): one row per run in a ring of
 * {@code maxRuns} slots per job, partition and node process, so that it stays bounded by
 * count (and, as a process writes a job and partition for the first time, what earlier
 * processes left of it is cut to the newest {@code maxRuns}: {@link RunRings}); rows
 * older than the retention are deleted by the same statement that writes a batch, at most
 * {@value #EXPIRED_PER_SAVE} at a time (the node writes its history apart from its loop:
 * a save never holds a renewal up). A batch is one statement: runs that began are written
 * whole (their slot's row replaced), runs that ended update their row while the slot is
 * still theirs.
 */
public final class JdbcRunHistory implements RunHistoryStore {

	private static final String COLUMNS = "slot, run, process, sequence, job, group_name, partition, node_id, epoch, "
			+ "started_at, ended_at, outcome, error, requested_by, requested_from, fire_at, expire_at";

	/**
	 * The most expired rows one save deletes, the oldest first: a backlog (a retention
	 * shortened, a history that could not be written for a while) goes in bounded steps,
	 * so that no save holds the server, or the node's history lane, for long. Each
	 * interval's save deletes as many, which outpaces any history this node writes.
	 */
	static final int EXPIRED_PER_SAVE = 500;

	private final Statements sql;

	private final JdbcSchema schema;

	private final JdbcStoreSettings settings;

	private final Duration retention;

	private final int maxRuns;

	private final String save;

	private final String table;

	/**
	 * Cuts a job and partition to its newest runs, as a ring opens; a slot that a newer
	 * run took meanwhile stays.
	 */
	private final String trim;

	private final RunRings rings = new RunRings();

	public JdbcRunHistory(DataSource dataSource, JdbcStoreSettings settings, Duration retention, int maxRuns) {
		if (maxRuns < 1) {
			throw new IllegalArgumentException("The history keeps at least one run per job, not " + maxRuns);
		}
		this.sql = new Statements(dataSource, settings);
		this.schema = new JdbcSchema(this.sql, settings);
		this.settings = settings;
		this.retention = retention;
		this.maxRuns = maxRuns;
		this.table = settings.table("runs");
		this.trim = "WITH old AS (SELECT slot, started_at FROM " + this.table
				+ " WHERE job = ? AND coalesce(partition, " + "-1) = ? ORDER BY started_at DESC OFFSET ? LIMIT "
				+ RunRings.TRIM_AT_MOST + ") DELETE FROM " + this.table
				+ " r USING old WHERE r.slot = old.slot AND r.started_at = old.started_at";
		String input = "unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], "
				+ "?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], "
				+ "?::text[], ?::boolean[]) AS i(slot, run, process, sequence, job, group_name, partition, node_id, "
				+ "epoch, started_at, ended_at, outcome, error, requested_by, requested_from, fire_at, expire_at, first)";
		// the newest run of a slot wins where the ring went round within one batch; an
		// end whose slot a newer run of the batch takes is moot
		this.save = "WITH i AS (SELECT * FROM " + input + "), began AS (INSERT INTO " + this.table + " (" + COLUMNS
				+ ") SELECT DISTINCT ON (slot) slot, run, process, sequence::bigint, job, group_name, "
				+ "partition::integer, node_id, epoch::bigint, started_at::timestamptz, ended_at::timestamptz, outcome, "
				+ "error, requested_by, requested_from, fire_at::timestamptz, expire_at::timestamptz FROM i WHERE first "
				+ "ORDER BY slot, sequence::bigint DESC "
				+ "ON CONFLICT (slot) DO UPDATE SET run = excluded.run, process = excluded.process, sequence = "
				+ "excluded.sequence, job = excluded.job, group_name = excluded.group_name, partition = "
				+ "excluded.partition, node_id = excluded.node_id, epoch = excluded.epoch, started_at = "
				+ "excluded.started_at, ended_at = excluded.ended_at, outcome = excluded.outcome, error = "
				+ "excluded.error, requested_by = excluded.requested_by, requested_from = excluded.requested_from, "
				+ "fire_at = excluded.fire_at, expire_at = excluded.expire_at), ended AS (UPDATE " + this.table
				+ " r SET ended_at "
				+ "= i.ended_at::timestamptz, outcome = i.outcome, error = i.error FROM i WHERE NOT i.first AND "
				+ "r.slot = i.slot AND r.run = i.run AND i.slot NOT IN (SELECT slot FROM i WHERE first)) DELETE FROM "
				+ this.table + " WHERE slot IN (SELECT slot FROM " + this.table + " WHERE expire_at < " + Statements.NOW
				+ " ORDER BY expire_at LIMIT " + EXPIRED_PER_SAVE + ")";
	}

	@Override
	public void initialize() {
		if (this.settings.initializeSchema()) {
			this.schema.create();
		}
	}

	@Override
	public void save(List<RunRecord> records) {
		if (records.isEmpty()) {
			return;
		}
		List<RunRecord> opening = this.rings.opening(records);
		if (!opening.isEmpty()) {
			this.sql.call("trim the history as " + opening.size() + " ring(s) open", () -> this.sql.jdbc
				.batchUpdate(this.trim, opening.stream()
					.map((r) -> new Object[] { r.job(), (r.partition() != null) ? r.partition() : -1, this.maxRuns })
					.toList()));
			this.rings.trimmed(opening);
		}
		this.sql.call("write " + records.size() + " run(s) to the history", () -> this.sql.jdbc.update((c) -> {
			PreparedStatement ps = c.prepareStatement(this.save);
			int p = 1;
			ps.setArray(p++, column(c, records, (r) -> slot(r)));
			ps.setArray(p++, column(c, records, RunRecord::id));
			ps.setArray(p++, column(c, records, RunRecord::process));
			ps.setArray(p++, column(c, records, (r) -> Long.toString(r.sequence())));
			ps.setArray(p++, column(c, records, RunRecord::job));
			ps.setArray(p++, column(c, records, RunRecord::group));
			ps.setArray(p++, column(c, records, (r) -> (r.partition() != null) ? r.partition().toString() : null));
			ps.setArray(p++, column(c, records, RunRecord::nodeId));
			ps.setArray(p++, column(c, records, (r) -> Long.toString(r.epoch())));
			ps.setArray(p++, column(c, records, (r) -> r.startedAt().toString()));
			ps.setArray(p++, column(c, records, (r) -> (r.endedAt() != null) ? r.endedAt().toString() : null));
			ps.setArray(p++, column(c, records, (r) -> (r.outcome() != null) ? r.outcome().tag() : null));
			ps.setArray(p++, column(c, records, RunRecord::error));
			ps.setArray(p++, column(c, records, RunRecord::requestedBy));
			ps.setArray(p++, column(c, records, RunRecord::requestedFrom));
			ps.setArray(p++, column(c, records, (r) -> (r.fireAt() != null) ? r.fireAt().toString() : null));
			ps.setArray(p++, column(c, records, (r) -> r.startedAt().plus(this.retention).toString()));
			ps.setArray(p, c.createArrayOf("boolean", records.stream().map(RunRecord::first).toArray()));
			return ps;
		}));
	}

	@Override
	public List<RunRecord> find(RunQuery query) {
		List<String> criteria = new ArrayList<>();
		List<Object> args = new ArrayList<>();
		criterion(criteria, args, "job = ?", query.job());
		criterion(criteria, args, "group_name = ?", query.group());
		criterion(criteria, args, "partition = ?", query.partition());
		criterion(criteria, args, "node_id = ?", query.nodeId());
		criterion(criteria, args, "started_at >= ?::timestamptz", timestamp(query.since()));
		args.add(query.limit());
		String where = criteria.isEmpty() ? "" : " WHERE " + String.join(" AND ", criteria);
		return this.sql.call("read the run history",
				() -> this.sql.jdbc.query(
						"SELECT " + COLUMNS + " FROM " + this.table + where + " ORDER BY started_at DESC LIMIT ?",
						JdbcRunHistory::record, args.toArray()));
	}

	private String slot(RunRecord record) {
		long slot = Math.floorMod(record.sequence() - 1, (long) this.maxRuns);
		return record.process() + ":" + record.job() + ":" + ((record.partition() != null) ? record.partition() : "-")
				+ ":" + slot;
	}

	private static void criterion(List<String> criteria, List<Object> args, String condition, @Nullable Object value) {
		if (value != null) {
			criteria.add(condition);
			args.add(value);
		}
	}

	private static java.sql.Array column(Connection c, List<RunRecord> records, Function<RunRecord, String> value)
			throws SQLException {
		return c.createArrayOf("text", records.stream().map(value).toArray());
	}

	private static RunRecord record(ResultSet rs, int row) throws SQLException {
		String outcome = rs.getString("outcome");
		Integer partition = rs.getObject("partition", Integer.class);
		Instant ended = instant(rs, "ended_at");
		return new RunRecord(rs.getString("run"), rs.getString("process"), rs.getLong("sequence"), rs.getString("job"),
				rs.getString("group_name"), partition, rs.getString("node_id"), rs.getLong("epoch"),
				instant(rs, "started_at"), ended,
				(outcome != null) ? RunOutcome.valueOf(outcome.toUpperCase(Locale.ROOT)) : null, rs.getString("error"),
				rs.getString("requested_by"), rs.getString("requested_from"), instant(rs, "fire_at"), false);
	}

}
