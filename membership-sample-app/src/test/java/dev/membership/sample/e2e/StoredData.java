package dev.membership.sample.e2e;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.bson.Document;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the sample and membership wrote, read straight from the database of the current
 * {@link Backend}: the sample's endpoints serve only the newest 500 runs, and the lease's
 * acquisition time is the database's own stamp.
 */
final class StoredData {

	/**
	 * One client per database port for the whole run (a client per poll would start its
	 * monitors every time).
	 */
	private static final Map<Integer, MongoClient> mongoClients = new ConcurrentHashMap<>();

	private StoredData() {
	}

	/**
	 * Every run recorded in {@code table} (a collection on MongoDB) of the sample's
	 * database on port {@code database}, oldest first, as the endpoints show them:
	 * {@code id}, {@code nodeId}, {@code epoch}, {@code partition} (tenant runs),
	 * {@code fireAt} (report runs), {@code startedAt} and {@code endedAt} (ISO, null
	 * while running or never ended), {@code accepted} (null when no fenced write was
	 * made).
	 */
	static List<JsonNode> runs(int database, String table) {
		List<JsonNode> runs = (Backend.CURRENT == Backend.MONGODB) ? mongoRuns(database, table)
				: postgresRuns(database, table);
		runs.sort(Comparator.comparing((JsonNode r) -> Instant.parse(r.get("startedAt").asString())));
		return runs;
	}

	/**
	 * When the database says the default group's lease was acquired with {@code epoch}.
	 */
	static Instant leaseAcquiredAt(int database, long epoch) {
		if (Backend.CURRENT == Backend.MONGODB) {
			Document lease = mongo(database).getDatabase("membership-sample")
				.getCollection("clusterleases")
				.find(new Document("_id", "default"))
				.first();
			assertThat(lease).isNotNull();
			assertThat(lease.get("epoch", Number.class).longValue()).as("lease epoch").isEqualTo(epoch);
			return lease.getDate("acquiredAt").toInstant();
		}
		try (Connection c = postgres(database);
				PreparedStatement ps = c
					.prepareStatement("SELECT epoch, acquired_at FROM membership_leases WHERE name = 'default'");
				ResultSet rs = ps.executeQuery()) {
			assertThat(rs.next()).as("the default group's lease").isTrue();
			assertThat(rs.getLong("epoch")).as("lease epoch").isEqualTo(epoch);
			return rs.getObject("acquired_at", OffsetDateTime.class).toInstant();
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static void close() {
		mongoClients.values().forEach(MongoClient::close);
		mongoClients.clear();
	}

	private static List<JsonNode> mongoRuns(int database, String collection) {
		List<JsonNode> runs = new ArrayList<>();
		for (Document d : mongo(database).getDatabase("membership-sample").getCollection(collection).find()) {
			if (d.getDate("startedAt") == null) {
				continue;
			}
			ObjectNode run = SampleProcesses.json.createObjectNode();
			run.put("id", String.valueOf(d.get("_id")));
			run.put("nodeId", d.getString("nodeId"));
			run.put("epoch", d.get("epoch", Number.class).longValue());
			if (d.get("partition") != null) {
				run.put("partition", d.get("partition", Number.class).intValue());
			}
			run.put("startedAt", d.getDate("startedAt").toInstant().toString());
			run.put("endedAt", (d.getDate("endedAt") != null) ? d.getDate("endedAt").toInstant().toString() : null);
			if (d.getDate("fireAt") != null) {
				run.put("fireAt", d.getDate("fireAt").toInstant().toString());
			}
			if (d.get("accepted") instanceof Boolean accepted) {
				run.put("accepted", accepted);
			}
			else {
				run.putNull("accepted");
			}
			runs.add(run);
		}
		return runs;
	}

	private static List<JsonNode> postgresRuns(int database, String table) {
		List<JsonNode> runs = new ArrayList<>();
		try (Connection c = postgres(database);
				PreparedStatement ps = c.prepareStatement("SELECT * FROM " + table + " WHERE started_at IS NOT NULL");
				ResultSet rs = ps.executeQuery()) {
			boolean partitioned = hasColumn(rs, "partition");
			boolean fired = hasColumn(rs, "fire_at");
			boolean fenced = hasColumn(rs, "accepted");
			while (rs.next()) {
				ObjectNode run = SampleProcesses.json.createObjectNode();
				run.put("id", rs.getString("id"));
				run.put("nodeId", rs.getString("node_id"));
				run.put("epoch", rs.getLong("epoch"));
				if (partitioned) {
					run.put("partition", rs.getInt("partition"));
				}
				run.put("startedAt", rs.getObject("started_at", OffsetDateTime.class).toInstant().toString());
				OffsetDateTime ended = rs.getObject("ended_at", OffsetDateTime.class);
				run.put("endedAt", (ended != null) ? ended.toInstant().toString() : null);
				if (fired) {
					run.put("fireAt", rs.getObject("fire_at", OffsetDateTime.class).toInstant().toString());
				}
				Boolean accepted = fenced ? rs.getObject("accepted", Boolean.class) : null;
				if (accepted != null) {
					run.put("accepted", accepted);
				}
				else {
					run.putNull("accepted");
				}
				runs.add(run);
			}
		}
		catch (SQLException ex) {
			if ("42P01".equals(ex.getSQLState())) {
				return runs; // no run recorded yet: the table comes with the first node
			}
			throw new IllegalStateException(ex);
		}
		return runs;
	}

	private static boolean hasColumn(ResultSet rs, String column) throws SQLException {
		for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
			if (column.equals(rs.getMetaData().getColumnName(i))) {
				return true;
			}
		}
		return false;
	}

	private static MongoClient mongo(int database) {
		return mongoClients.computeIfAbsent(database, (port) -> MongoClients.create("mongodb://127.0.0.1:" + port));
	}

	private static Connection postgres(int database) throws SQLException {
		return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + database + "/postgres", "postgres", "");
	}

}
