package dev.membership.sample.tenants;

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

/**
 * The roll-up's data in PostgreSQL (postgres profile): tables {@code tenant_runs} and
 * {@code tenant_checkpoints}.
 */
@Component
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@Profile("postgres")
class JdbcTenantData implements TenantData {

	private final JdbcClient jdbc;

	JdbcTenantData(JdbcClient jdbc) {
		this.jdbc = jdbc;
		SampleTables.create(jdbc,
				"CREATE TABLE IF NOT EXISTS tenant_runs (id text PRIMARY KEY, node_id text, partition integer, "
						+ "epoch bigint, started_at timestamptz, ended_at timestamptz, accepted boolean)",
				// fence: the epoch of the partition's last term that moved its checkpoint
				// (JdbcEpochFence)
				"CREATE TABLE IF NOT EXISTS tenant_checkpoints (id text PRIMARY KEY, rolled_up_at timestamptz, "
						+ "by_node text, fence bigint)");
	}

	@Override
	public String startRun(String nodeId, int partition, long epoch) {
		String id = UUID.randomUUID().toString();
		this.jdbc
			.sql("INSERT INTO tenant_runs (id, node_id, partition, epoch, started_at) "
					+ "VALUES (?, ?, ?, ?, clock_timestamp())")
			.params(id, nodeId, partition, epoch)
			.update();
		return id;
	}

	@Override
	public FencedCheckpoint checkpoint(LeadershipTerm term, int partition, java.time.Instant at, String nodeId) {
		JdbcFencedWriteResult result = JdbcEpochFence.of(term)
			.upsert(this.jdbc, "tenant_checkpoints", Map.of("id", "partition-" + partition),
					Map.of("rolled_up_at", OffsetDateTime.ofInstant(at, java.time.ZoneOffset.UTC), "by_node", nodeId));
		return new FencedCheckpoint(result.applied(), result.supersededBy().orElse(-1));
	}

	@Override
	public void endRun(String id, @Nullable Boolean accepted) {
		this.jdbc.sql("UPDATE tenant_runs SET ended_at = clock_timestamp(), accepted = ? WHERE id = ?")
			.params(accepted, id)
			.update();
	}

	@Override
	public List<TenantRun> runs() {
		return this.jdbc.sql("SELECT * FROM tenant_runs ORDER BY started_at DESC LIMIT 500")
			.query((rs, i) -> new TenantRun(rs.getString("id"), rs.getString("node_id"), rs.getInt("partition"),
					rs.getLong("epoch"), instant(rs.getObject("started_at", OffsetDateTime.class)),
					instant(rs.getObject("ended_at", OffsetDateTime.class)), rs.getObject("accepted", Boolean.class)))
			.list();
	}

}
