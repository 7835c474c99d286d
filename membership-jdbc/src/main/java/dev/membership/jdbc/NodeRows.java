package dev.membership.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.spi.Heartbeat;
import dev.membership.spi.NodeRecord;

import static dev.membership.jdbc.Statements.NOW;
import static dev.membership.jdbc.Statements.instant;
import static dev.membership.jdbc.Statements.timestamp;

/**
 * The node rows: each process's heartbeat, stamped with the server's clock, one statement
 * each.
 */
final class NodeRows {

	private static final String COLUMNS = "node_id, incarnation, address, started_at, updated_at, groups, partitions";

	private static final TypeReference<Map<String, Integer>> PARTITIONS = new TypeReference<>() {
	};

	private final JsonMapper json = JsonMapper.builder().build();

	private final Statements sql;

	private final String heartbeat;

	private final String findAll;

	private final String remove;

	private final String removeOld;

	NodeRows(Statements sql) {
		this.sql = sql;
		// the previous incarnation comes from the statement's snapshot, before its own
		// write: whether another process wrote this node's row since this one's last
		// heartbeat
		this.heartbeat = "WITH t AS (SELECT " + NOW + " AS now), old AS (SELECT incarnation FROM " + sql.nodes
				+ " WHERE node_id = ?) INSERT INTO " + sql.nodes + " AS n (" + COLUMNS + ") SELECT ?::text, ?::text, "
				+ "?::text, COALESCE(?::timestamptz, t.now), t.now, ?::text[], ?::jsonb FROM t ON CONFLICT (node_id) "
				+ "DO UPDATE SET incarnation = excluded.incarnation, address = excluded.address, "
				+ "started_at = excluded.started_at, updated_at = " + NOW + ", groups = excluded.groups, "
				+ "partitions = excluded.partitions RETURNING n.updated_at, (SELECT incarnation FROM old) AS previous";
		this.findAll = "SELECT " + COLUMNS + " FROM " + sql.nodes;
		this.remove = "DELETE FROM " + sql.nodes + " WHERE node_id = ? AND incarnation = ?";
		this.removeOld = "DELETE FROM " + sql.nodes + " WHERE updated_at < ?::timestamptz";
	}

	Heartbeat heartbeat(NodeRecord node) {
		String partitions = this.json.writeValueAsString(node.partitions());
		return this.sql.call("write the heartbeat of '" + node.nodeId() + "'", () -> this.sql.jdbc.query((c) -> {
			PreparedStatement ps = c.prepareStatement(this.heartbeat);
			ps.setString(1, node.nodeId());
			ps.setString(2, node.nodeId());
			ps.setString(3, node.incarnation());
			ps.setString(4, node.address());
			ps.setObject(5, timestamp(node.startedAt()));
			ps.setArray(6, Statements.texts(c, node.groups()));
			ps.setString(7, partitions);
			return ps;
		}, (ResultSet rs) -> {
			rs.next();
			String previous = rs.getString("previous");
			return new Heartbeat(instant(rs, "updated_at"), previous != null && !previous.equals(node.incarnation()));
		}));
	}

	List<NodeRecord> findAll() {
		return this.sql.call("read the nodes", () -> this.sql.jdbc.query(this.findAll, this::node));
	}

	void remove(String nodeId, String incarnation) {
		this.sql.call("remove node '" + nodeId + "'", () -> this.sql.jdbc.update(this.remove, nodeId, incarnation));
	}

	long removeNotSeenSince(Instant cutoff) {
		return this.sql.call("remove nodes not seen since " + cutoff,
				() -> (long) this.sql.jdbc.update(this.removeOld, timestamp(cutoff)));
	}

	private NodeRecord node(ResultSet rs, int row) throws SQLException {
		String[] groups = (String[]) rs.getArray("groups").getArray();
		return new NodeRecord(rs.getString("node_id"), rs.getString("incarnation"), rs.getString("address"),
				instant(rs, "started_at"), instant(rs, "updated_at"), Arrays.asList(groups),
				this.json.readValue(rs.getString("partitions"), PARTITIONS));
	}

}
