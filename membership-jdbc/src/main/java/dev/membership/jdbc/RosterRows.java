package dev.membership.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RosterTooLargeException;

import static dev.membership.jdbc.Statements.NOW;
import static dev.membership.jdbc.Statements.instant;

/**
 * The roster: one row ({@code id = 1}), its member list, recent changes and placements as
 * {@code jsonb}, written by the keeper in one fenced statement and read whole or, by
 * every member each interval, without its members and placements.
 */
final class RosterRows {

	/**
	 * What the members and kept changes may take, as on MongoDB: a member's read each
	 * interval stays small.
	 */
	static final int ROSTER_BUDGET_BYTES = 15 * 1024 * 1024;

	private static final TypeReference<List<Member>> MEMBERS = new TypeReference<>() {
	};

	private static final TypeReference<List<RosterChange>> CHANGES = new TypeReference<>() {
	};

	private static final TypeReference<Map<String, GroupAssignment>> ASSIGNMENTS = new TypeReference<>() {
	};

	private final JsonMapper json = JsonMapper.builder().build();

	private final Statements sql;

	private final String write;

	private final String find;

	RosterRows(Statements sql) {
		this.sql = sql;
		// over an older epoch, or an earlier write of the same term (its sequence); else
		// nothing, and no row back. The stamp of an update is read once the row is
		// locked, as the leases' are: never before the write it follows
		this.write = "INSERT INTO " + sql.roster + " AS r (id, version, keeper, epoch, sequence, written_at, members, "
				+ "changes, assignments) VALUES (1, 1, ?, ?, ?, " + NOW + ", ?::jsonb, ?::jsonb, ?::jsonb) "
				+ "ON CONFLICT (id) DO UPDATE SET version = r.version + 1, keeper = excluded.keeper, "
				+ "epoch = excluded.epoch, sequence = excluded.sequence, written_at = " + NOW + ", "
				+ "members = excluded.members, changes = excluded.changes, assignments = excluded.assignments "
				+ "WHERE r.epoch < excluded.epoch OR (r.epoch = excluded.epoch AND r.sequence < excluded.sequence) "
				+ "RETURNING version";
		this.find = "SELECT version, keeper, epoch, written_at, members, changes, assignments FROM " + sql.roster
				+ " WHERE id = 1";
	}

	OptionalLong write(List<Member> members, List<RosterChange> changes, Map<String, GroupAssignment> assignments,
			String keeperNodeId, long epoch, long sequence) {
		String memberJson = this.json.writeValueAsString(Roster.toMillis(members));
		String placed = this.json.writeValueAsString(assignments);
		long bytes = utf8(memberJson) + utf8(placed);
		if (bytes > ROSTER_BUDGET_BYTES) {
			throw new RosterTooLargeException(members.size(), bytes, ROSTER_BUDGET_BYTES);
		}
		// the oldest changes left out first: a member behind them reads the whole roster
		// once
		List<RosterChange> kept = new ArrayList<>();
		for (int i = changes.size() - 1; i >= 0; i--) {
			RosterChange c = changes.get(i);
			RosterChange stamped = new RosterChange(c.fromVersion(), Roster.toMillis(c.upserted()),
					Roster.toMillis(c.removed()), c.placed());
			bytes += utf8(this.json.writeValueAsString(stamped));
			if (bytes > ROSTER_BUDGET_BYTES) {
				break;
			}
			kept.add(0, stamped);
		}
		String changeJson = this.json.writeValueAsString(kept);
		return this.sql.call("write the roster", () -> this.sql.jdbc.query(this.write, (ps) -> {
			ps.setString(1, keeperNodeId);
			ps.setLong(2, epoch);
			ps.setLong(3, sequence);
			ps.setString(4, memberJson);
			ps.setString(5, changeJson);
			ps.setString(6, placed);
		}, (rs, i) -> rs.getLong("version")).stream().mapToLong(Long::longValue).findFirst());
	}

	Optional<Roster> find() {
		return this.sql.call("read the roster",
				() -> this.sql.jdbc
					.query(this.find,
							(rs, i) -> new Roster(rs.getLong("version"), rs.getString("keeper"), rs.getLong("epoch"),
									instant(rs, "written_at"), this.json.readValue(rs.getString("members"), MEMBERS),
									changes(rs), assignments(rs)))
					.stream()
					.findFirst());
	}

	/**
	 * The roster of a row of the members' read, which carries neither the member list nor
	 * the placements.
	 */
	Roster withoutMembers(ResultSet rs) throws SQLException {
		return new Roster(rs.getLong("version"), rs.getString("keeper"), rs.getLong("epoch"), instant(rs, "written_at"),
				List.of(), changes(rs), Map.of());
	}

	private List<RosterChange> changes(ResultSet rs) throws SQLException {
		return this.json.readValue(rs.getString("changes"), CHANGES);
	}

	private Map<String, GroupAssignment> assignments(ResultSet rs) throws SQLException {
		return this.json.readValue(rs.getString("assignments"), ASSIGNMENTS);
	}

	private static long utf8(String json) {
		return json.getBytes(StandardCharsets.UTF_8).length;
	}

}
