package dev.membership.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.spi.FireMark;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.Roster;

import static dev.membership.jdbc.Statements.NOW;
import static dev.membership.jdbc.Statements.RELEASED;
import static dev.membership.jdbc.Statements.instant;
import static dev.membership.jdbc.Statements.timestamp;

/**
 * The leases, one row each, every operation one statement (an acquisition's in a
 * transaction of its own, with the term's row: {@link TakeOvers}). A conditional write is
 * safe at READ COMMITTED: an {@code UPDATE} (or the {@code DO UPDATE} of an
 * {@code INSERT ... ON CONFLICT}) that meets a row another transaction changes waits for
 * it, then evaluates its {@code WHERE} again on the newer row ("Transaction Isolation",
 * 13.2.1), and {@code INSERT ... ON CONFLICT DO UPDATE} either inserts or updates, never
 * fails on a racing insert ("INSERT", ON CONFLICT clause). So no two acquisitions can
 * both see a lease free, and the epoch grows by one at each.
 */
final class LeaseRows {

	private static final String COLUMNS = "name, node_id, incarnation, address, epoch, expires_at, acquired_at, "
			+ "renewed_at, fires";

	private static final JsonMapper json = JsonMapper.builder().build();

	private final Statements sql;

	private final TakeOvers takeOvers;

	/**
	 * The server's WAL timeline ({@code pg_current_wal_lsn()}: any role, on a primary).
	 */
	private static final String TIMELINE = "('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int"
			+ "::bigint";

	/**
	 * The first epoch of the server's WAL timeline, less one:
	 * {@code (timeline - 1) * 2^32}. A promotion starts a new timeline, so every epoch a
	 * promoted server hands out is larger than any its former primary did, even one whose
	 * take-over never reached it (an asynchronous replica, a failover that lost commits).
	 */
	static final String TIMELINE_BASE = "((" + TIMELINE + " - 1) * 4294967296)";

	/**
	 * The least epoch a take-over hands out, less one: the {@link #TIMELINE_BASE}, and,
	 * once the server is on a timeline past the first (it was promoted, or descends from
	 * a promotion), the database's clock in milliseconds. Two promotions of one history
	 * without a shared WAL archive pick the same new timeline (a replica promoted after
	 * another that it never followed, a volume snapshot restored): the timeline alone
	 * then hands an epoch out twice, the clock does not, as long as the later server's
	 * clock is not behind the earlier's by more than the time between them.
	 */
	static final String EPOCH_BASE = "GREATEST(" + TIMELINE_BASE + ", CASE WHEN " + TIMELINE
			+ " > 1 THEN (extract(epoch FROM " + NOW + ") * 1000)::bigint ELSE 0 END)";

	private final String acquire;

	/**
	 * Where the server has no WAL timeline to read (found at startup): epochs grow by
	 * one, as the stored ones do.
	 */
	private final String acquireOffTimeline;

	private volatile boolean onTimeline = true;

	private final String renew;

	private final String renewAll;

	private final String release;

	private final String releaseAll;

	private final String find;

	private final String findWithRoster;

	LeaseRows(Statements sql) {
		this.sql = sql;
		this.takeOvers = new TakeOvers(sql);
		// free: no row, expired before the caller's bound, this holder's own older
		// request, or the term named by the holder that let it go (a take-over); one
		// statement, the row locked while its WHERE is evaluated. The stamp of a
		// take-over is read once the row is locked (in SET), not at the statement's
		// start: a statement that waited for the previous term's write must not stamp the
		// next term earlier than it
		this.acquire = acquire(sql, EPOCH_BASE);
		this.acquireOffTimeline = acquire(sql, "0");
		// never moves the expiry back, never revives a released lease, nor one expired by
		// the server's clock
		this.renew = "UPDATE " + sql.leases + " SET expires_at = GREATEST(expires_at, ?::timestamptz), renewed_at = "
				+ NOW + ", fires = coalesce(?::jsonb, fires) WHERE name = ? AND node_id = ? AND incarnation = ? AND "
				+ "epoch = ? AND expires_at > " + RELEASED + " AND expires_at > " + NOW + " AND " + sql.writeSettings
				+ " RETURNING renewed_at";
		// each row stamped as it is written, and only rows whose expiry is older than
		// this request's
		this.renewAll = "UPDATE " + sql.leases + " l SET expires_at = ?::timestamptz, renewed_at = " + NOW
				+ ", fires = coalesce(r.fires::jsonb, l.fires) FROM unnest(?::text[], ?::bigint[], ?::text[]) "
				+ "AS r(name, epoch, fires) "
				+ "WHERE l.name = r.name AND l.epoch = r.epoch AND l.node_id = ? AND l.incarnation = ? "
				+ "AND l.expires_at > " + RELEASED + " AND l.expires_at > " + NOW
				+ " AND l.expires_at < ?::timestamptz AND " + sql.writeSettings;
		this.release = "UPDATE " + sql.leases + " SET expires_at = " + RELEASED + ", fires = coalesce(?::jsonb, fires)"
				+ " WHERE name = ? AND node_id = ? AND incarnation = ? AND epoch = ? AND " + sql.writeSettings;
		this.releaseAll = "UPDATE " + sql.leases + " l SET expires_at = " + RELEASED
				+ ", fires = coalesce(r.fires::jsonb, "
				+ "l.fires) FROM unnest(?::text[], ?::bigint[], ?::text[]) AS r(name, epoch, fires) WHERE l.name = r.name "
				+ "AND l.epoch = r.epoch AND l.node_id = ? AND l.incarnation = ? AND " + sql.writeSettings;
		this.find = "SELECT " + COLUMNS + " FROM " + sql.leases + " WHERE name = ?";
		// every member's read of an interval: its leases and, when it changed, the roster
		// without its members and placements
		this.findWithRoster = "SELECT 'l' AS kind, " + COLUMNS + ", NULL::bigint AS version, NULL::text AS keeper, "
				+ "NULL::timestamptz AS written_at, NULL::jsonb AS changes FROM " + sql.leases
				+ " WHERE name = ANY(?::text[]) UNION ALL SELECT 'r', NULL, NULL, NULL, NULL, epoch, NULL, "
				+ "NULL, NULL, NULL, version, keeper, written_at, changes FROM " + sql.roster
				+ " WHERE id = 1 AND version <> ?";
	}

	/**
	 * Free: no row, expired before the caller's bound, this holder's own older request,
	 * or the term named by the holder that let it go (a take-over); one statement, the
	 * row locked while its WHERE is evaluated. The epoch is the stored one plus one, and
	 * never below the timeline's base. The stamp of a take-over is read once the row is
	 * locked (in SET), not at the statement's start: a statement that waited for the
	 * previous term's write must not stamp the next term earlier than it. And the term's
	 * row, written only here: it waits for (TakeOvers: or ends) the older term's fenced
	 * transactions.
	 */
	private static String acquire(Statements sql, String base) {
		return "WITH t AS (SELECT " + NOW + " AS now, " + base + " + 1 AS first), taken AS (INSERT INTO " + sql.leases
				+ " AS l (" + COLUMNS + ") SELECT ?::text, ?::text, ?::text, ?::text, t.first, ?::timestamptz, t.now, "
				+ "t.now, NULL FROM t ON CONFLICT (name) DO UPDATE SET node_id = excluded.node_id, incarnation = "
				+ "excluded.incarnation, address = excluded.address, epoch = GREATEST(l.epoch + 1, excluded.epoch), "
				+ "expires_at = excluded.expires_at, (acquired_at, renewed_at) = (SELECT s.now, s.now FROM (SELECT "
				+ NOW + " AS now) s) WHERE l.expires_at < ?::timestamptz "
				+ "OR (l.node_id = ?::text AND l.incarnation = ?::text AND l.expires_at < excluded.expires_at) "
				+ "OR (l.node_id = ?::text AND l.epoch = ?::bigint) RETURNING " + COLUMNS + "), term AS (INSERT INTO "
				+ sql.terms + " AS m (name, epoch, began_at) SELECT name, epoch, acquired_at FROM taken ON CONFLICT "
				+ "(name) DO UPDATE SET epoch = excluded.epoch, began_at = excluded.began_at WHERE m.epoch < "
				+ "excluded.epoch) SELECT " + COLUMNS + " FROM taken";
	}

	/**
	 * Whether the server has a WAL timeline to base epochs on, asked once at startup: not
	 * where the function is not supported, not there or not allowed (a service of
	 * PostgreSQL's kind that keeps no WAL of its own).
	 */
	boolean readTimeline() {
		try {
			this.sql.jdbc.queryForObject("SELECT " + TIMELINE_BASE, Long.class);
			this.onTimeline = true;
		}
		catch (DataAccessException ex) {
			String state = (ex.getMostSpecificCause() instanceof SQLException sqlException) ? sqlException.getSQLState()
					: null;
			if (state == null || !(state.startsWith("0A") || state.equals("42883") || state.equals("42501"))) {
				throw ex;
			}
			this.onTimeline = false;
		}
		return this.onTimeline;
	}

	/**
	 * Epochs as the stored one plus one, as where the server has no timeline: the broken
	 * variant of a test.
	 */
	void offTimeline() {
		this.onTimeline = false;
	}

	Optional<LeaseRecord> acquire(String group, Holder holder, @Nullable String from, long epoch, Instant expiredBefore,
			Instant expiresAt) {
		String statement = this.onTimeline ? this.acquire : this.acquireOffTimeline;
		return this.takeOvers.acquire("acquire lease '" + group + "'", group, statement, (ps) -> {
			ps.setString(1, group);
			ps.setString(2, holder.nodeId());
			ps.setString(3, holder.incarnation());
			ps.setString(4, holder.address());
			ps.setObject(5, timestamp(expiresAt));
			ps.setObject(6, timestamp(expiredBefore));
			ps.setString(7, holder.nodeId());
			ps.setString(8, holder.incarnation());
			ps.setString(9, from);
			ps.setLong(10, epoch);
		}, LeaseRows::lease, timestamp(expiredBefore), from, epoch);
	}

	Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		return this.sql.call("renew lease '" + group + "'", () -> this.sql.jdbc.query(this.renew, (ps) -> {
			ps.setObject(1, timestamp(expiresAt));
			ps.setString(2, firesJson(fires));
			holderAndEpoch(ps, 3, group, holder, epoch);
		}, (rs, i) -> instant(rs, "renewed_at")).stream().findFirst());
	}

	long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt, Map<String, List<FireMark>> fires) {
		if (epochs.isEmpty()) {
			return 0;
		}
		List<String> names = new ArrayList<>(epochs.keySet());
		List<Long> numbers = new ArrayList<>();
		List<String> marks = new ArrayList<>();
		for (String name : names) {
			numbers.add(epochs.get(name));
			marks.add(firesJson(fires.get(name))); // null: the lease keeps its own
		}
		return this.sql.call("renew " + epochs.size() + " lease(s)", () -> (long) this.sql.jdbc.update((c) -> {
			PreparedStatement ps = c.prepareStatement(this.renewAll);
			ps.setObject(1, timestamp(expiresAt));
			ps.setArray(2, Statements.texts(c, names));
			ps.setArray(3, Statements.longs(c, numbers));
			ps.setArray(4, c.createArrayOf("text", marks.toArray()));
			ps.setString(5, holder.nodeId());
			ps.setString(6, holder.incarnation());
			ps.setObject(7, timestamp(expiresAt));
			return ps;
		}));
	}

	boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		return this.sql.call("release lease '" + group + "'", () -> this.sql.jdbc.update(this.release, (ps) -> {
			ps.setString(1, firesJson(fires));
			holderAndEpoch(ps, 2, group, holder, epoch);
		}) > 0);
	}

	long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		if (epochs.isEmpty()) {
			return 0;
		}
		List<String> names = new ArrayList<>(epochs.keySet());
		List<Long> numbers = new ArrayList<>();
		List<String> marks = new ArrayList<>();
		for (String name : names) {
			numbers.add(epochs.get(name));
			marks.add(firesJson(fires.get(name)));
		}
		return this.sql.call("release " + epochs.size() + " lease(s)", () -> (long) this.sql.jdbc.update((c) -> {
			PreparedStatement ps = c.prepareStatement(this.releaseAll);
			ps.setArray(1, Statements.texts(c, names));
			ps.setArray(2, Statements.longs(c, numbers));
			ps.setArray(3, c.createArrayOf("text", marks.toArray()));
			ps.setString(4, holder.nodeId());
			ps.setString(5, holder.incarnation());
			return ps;
		}));
	}

	/**
	 * {@code fires} as the lease row keeps them ({@code jsonb}: job, instant as ISO-8601,
	 * ended); null stays null.
	 */
	static @Nullable String firesJson(@Nullable List<FireMark> fires) {
		if (fires == null) {
			return null;
		}
		List<Map<String, Object>> rows = new ArrayList<>(fires.size());
		for (FireMark fire : fires) {
			Map<String, Object> row = new java.util.LinkedHashMap<>();
			row.put("job", fire.job());
			row.put("at", fire.at().toString());
			row.put("ended", fire.ended());
			// only when there is something to say: a lease row stays small
			if (fire.owed()) {
				row.put("owed", true);
			}
			if (fire.schedule() != null) {
				row.put("schedule", fire.schedule());
			}
			rows.add(row);
		}
		return json.writeValueAsString(rows);
	}

	private static List<FireMark> fires(@Nullable String stored) {
		if (stored == null) {
			return List.of();
		}
		List<FireMark> fires = new ArrayList<>();
		for (JsonNode fire : json.readTree(stored)) {
			JsonNode owed = fire.get("owed");
			JsonNode schedule = fire.get("schedule");
			fires.add(new FireMark(fire.get("job").asString(), Instant.parse(fire.get("at").asString()),
					fire.get("ended").asBoolean(), owed != null && owed.asBoolean(),
					(schedule != null && !schedule.isNull()) ? schedule.asString() : null));
		}
		return fires;
	}

	Optional<LeaseRecord> find(String group) {
		return this.sql.call("read lease '" + group + "'",
				() -> this.sql.jdbc.query(this.find, (ps) -> ps.setString(1, group), LeaseRows::lease)
					.stream()
					.findFirst());
	}

	LeaseReading findWithRoster(Collection<String> groups, long rosterVersion, RosterRows rosters) {
		return this.sql.call("read " + groups.size() + " lease(s)", () -> this.sql.jdbc.query((c) -> {
			PreparedStatement ps = c.prepareStatement(this.findWithRoster);
			ps.setArray(1, Statements.texts(c, new ArrayList<>(groups)));
			ps.setLong(2, rosterVersion);
			return ps;
		}, (ResultSet rs) -> {
			Map<String, LeaseRecord> leases = new HashMap<>();
			Roster roster = null;
			while (rs.next()) {
				if ("l".equals(rs.getString("kind"))) {
					LeaseRecord lease = lease(rs, 0);
					leases.put(lease.group(), lease);
				}
				else {
					roster = rosters.withoutMembers(rs);
				}
			}
			return new LeaseReading(leases, roster);
		}));
	}

	private static void holderAndEpoch(PreparedStatement ps, int first, String group, Holder holder, long epoch)
			throws SQLException {
		ps.setString(first, group);
		ps.setString(first + 1, holder.nodeId());
		ps.setString(first + 2, holder.incarnation());
		ps.setLong(first + 3, epoch);
	}

	private static LeaseRecord lease(ResultSet rs, int row) throws SQLException {
		String nodeId = rs.getString("node_id");
		String incarnation = rs.getString("incarnation");
		Holder holder = (nodeId != null && incarnation != null)
				? new Holder(nodeId, incarnation, rs.getString("address")) : null;
		return new LeaseRecord(rs.getString("name"), holder, rs.getLong("epoch"), instant(rs, "expires_at"),
				instant(rs, "acquired_at"), instant(rs, "renewed_at"), fires(rs.getString("fires")));
	}

}
