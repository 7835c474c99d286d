package dev.membership.sample.reports;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Profile;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

import dev.membership.sample.SampleTables;

import static dev.membership.sample.SampleTables.instant;
import static dev.membership.sample.SampleTables.timestamp;

/** The report job's runs in PostgreSQL (postgres profile): table {@code report_runs}. */
@Component
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@Profile("postgres")
class JdbcReportData implements ReportData {

	private final JdbcClient jdbc;

	JdbcReportData(JdbcClient jdbc) {
		this.jdbc = jdbc;
		SampleTables.create(jdbc, "CREATE TABLE IF NOT EXISTS report_runs (id text PRIMARY KEY, node_id text, "
				+ "epoch bigint, fire_at timestamptz, started_at timestamptz, ended_at timestamptz)");
	}

	@Override
	public String startRun(String nodeId, long epoch, Instant fireAt) {
		String id = UUID.randomUUID().toString();
		this.jdbc
			.sql("INSERT INTO report_runs (id, node_id, epoch, fire_at, started_at) "
					+ "VALUES (?, ?, ?, ?, clock_timestamp())")
			.params(id, nodeId, epoch, timestamp(fireAt))
			.update();
		return id;
	}

	@Override
	public void endRun(String id) {
		this.jdbc.sql("UPDATE report_runs SET ended_at = clock_timestamp() WHERE id = ?").param(id).update();
	}

	@Override
	public List<ReportRun> runs() {
		return this.jdbc.sql("SELECT * FROM report_runs ORDER BY started_at DESC LIMIT 500")
			.query((rs, i) -> new ReportRun(rs.getString("id"), rs.getString("node_id"), rs.getLong("epoch"),
					instant(rs.getObject("fire_at", OffsetDateTime.class)),
					instant(rs.getObject("started_at", OffsetDateTime.class)),
					instant(rs.getObject("ended_at", OffsetDateTime.class))))
			.list();
	}

}
