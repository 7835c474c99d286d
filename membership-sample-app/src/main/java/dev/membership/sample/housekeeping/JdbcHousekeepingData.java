package dev.membership.sample.housekeeping;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import dev.membership.jdbc.JdbcEpochFence;
import dev.membership.jdbc.JdbcFencedWriteResult;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.sample.FencedCheckpoint;
import dev.membership.sample.SampleTables;

import static dev.membership.sample.SampleTables.instant;
import static dev.membership.sample.SampleTables.timestamp;

/**
 * The housekeeping's data in PostgreSQL (postgres profile): tables {@code sample_items},
 * {@code housekeeping_runs}.
 */
@Component
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@Profile("postgres")
class JdbcHousekeepingData implements HousekeepingData {

	private final JdbcClient jdbc;

	JdbcHousekeepingData(JdbcClient jdbc) {
		this.jdbc = jdbc;
		SampleTables.create(jdbc,
				"CREATE TABLE IF NOT EXISTS sample_items (node_id text, created_at timestamptz, expires_at timestamptz)",
				"CREATE TABLE IF NOT EXISTS housekeeping_runs (id text PRIMARY KEY, node_id text, epoch bigint, "
						+ "started_at timestamptz, ended_at timestamptz, purged bigint, accepted boolean, error text)",
				// fence: the epoch of the last term that moved the checkpoint
				// (JdbcEpochFence)
				"CREATE TABLE IF NOT EXISTS housekeeping_state (id text PRIMARY KEY, purged_before timestamptz, "
						+ "by_node text, fence bigint)");
	}

	@Override
	public void writeItem(String nodeId, Instant createdAt, Instant expiresAt) {
		this.jdbc.sql("INSERT INTO sample_items VALUES (?, ?, ?)")
			.params(nodeId, timestamp(createdAt), timestamp(expiresAt))
			.update();
	}

	@Override
	public String startRun(String nodeId, long epoch) {
		String id = UUID.randomUUID().toString();
		// stamped by the database's clock, like the leases: runs of different nodes
		// compare exactly
		this.jdbc
			.sql("INSERT INTO housekeeping_runs (id, node_id, epoch, started_at, purged) "
					+ "VALUES (?, ?, ?, clock_timestamp(), 0)")
			.params(id, nodeId, epoch)
			.update();
		return id;
	}

	@Override
	public long purgeExpiredBefore(Instant before) {
		return this.jdbc.sql("DELETE FROM sample_items WHERE expires_at < ?").param(timestamp(before)).update();
	}

	@Override
	public FencedCheckpoint checkpoint(LeadershipTerm term, Instant purgedBefore, String nodeId) {
		JdbcFencedWriteResult result = JdbcEpochFence.of(term)
			.upsert(this.jdbc, "housekeeping_state", Map.of("id", "purge"),
					Map.of("purged_before", timestamp(purgedBefore), "by_node", nodeId));
		return new FencedCheckpoint(result.applied(), result.supersededBy().orElse(-1));
	}

	@Override
	public void endRun(String id, long purged, @Nullable Boolean accepted, @Nullable String error) {
		this.jdbc
			.sql("UPDATE housekeeping_runs SET ended_at = clock_timestamp(), purged = ?, accepted = ?, error = ? "
					+ "WHERE id = ?")
			.params(purged, accepted, error, id)
			.update();
	}

	@Override
	public List<HousekeepingRun> runs() {
		return this.jdbc.sql("SELECT * FROM housekeeping_runs ORDER BY started_at DESC LIMIT 500")
			.query((rs, i) -> new HousekeepingRun(rs.getString("id"), rs.getString("node_id"), rs.getLong("epoch"),
					instant(rs.getObject("started_at", OffsetDateTime.class)),
					instant(rs.getObject("ended_at", OffsetDateTime.class)), rs.getLong("purged"),
					rs.getObject("accepted", Boolean.class), rs.getString("error")))
			.list();
	}

}
