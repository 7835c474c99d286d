package dev.membership.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the PostgreSQL history does beyond the contract: a batch that goes round the ring,
 * and the retention.
 */
class JdbcRunHistoryTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);

	@Test
	void aBatchWithMoreRunsOfAJobThanItsRingKeepsTheNewestAndEndsOnlyThose() {
		JdbcRunHistory history = history("ring_", Duration.ofDays(1));
		List<RunRecord> batch = new ArrayList<>();
		for (int i = 1; i <= 7; i++) {
			batch.add(run(i, T0.plusSeconds(i), null, true));
		}
		// the end of a run its slot no longer holds
		batch.add(run(1, T0.plusSeconds(1), RunOutcome.SUCCESS, false));
		history.save(batch);
		history.save(List.of(run(7, T0.plusSeconds(7), RunOutcome.SUCCESS, false)));
		List<RunRecord> runs = history.find(RunQuery.latest(100));
		assertThat(runs).extracting(RunRecord::sequence).containsExactly(7L, 6L, 5L);
		assertThat(runs.get(0).outcome()).isEqualTo(RunOutcome.SUCCESS);
		assertThat(runs.get(1).outcome()).isNull();
	}

	@Test
	void runsPastTheRetentionAreDeletedAsOthersAreWritten() {
		JdbcRunHistory history = history("old_", Duration.ofHours(1));
		history.save(List.of(run(1, Instant.now().minus(Duration.ofHours(2)), RunOutcome.SUCCESS, true)));
		history.save(List.of(run(2, Instant.now(), null, true)));
		assertThat(history.find(RunQuery.latest(10))).extracting(RunRecord::sequence).containsExactly(2L);
	}

	@Test
	void aBacklogOfExpiredRunsIsDeletedABoundedBatchPerSaveOldestFirst() {
		JdbcRunHistory history = history("backlog_", Duration.ofHours(1));
		history.save(List.of(run(1, Instant.now(), null, true))); // creates the table
		org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(
				postgres.dataSource());
		int backlog = JdbcRunHistory.EXPIRED_PER_SAVE * 2 + 100;
		jdbc.update("INSERT INTO backlog_runs (slot, run, process, sequence, job, group_name, node_id, epoch, "
				+ "started_at, expire_at) SELECT 'old:' || g, 'old-' || g, 'old', g, 'jobs#old', 'default', 'n0', 1, "
				+ "now() - interval '2 hours', now() - interval '1 hour' - g * interval '1 ms' FROM "
				+ "generate_series(1, ?) g", backlog);
		history.save(List.of(run(2, Instant.now(), null, true)));
		Integer left = jdbc.queryForObject("SELECT count(*) FROM backlog_runs WHERE process = 'old'", Integer.class);
		assertThat(left).isEqualTo(backlog - JdbcRunHistory.EXPIRED_PER_SAVE);
		// the oldest went first: the latest-expiring rows are the ones left
		assertThat(jdbc.queryForObject("SELECT min(sequence) FROM backlog_runs WHERE process = 'old'", Long.class))
			.isEqualTo(1L);
		history.save(List.of(run(3, Instant.now(), null, true)));
		history.save(List.of(run(4, Instant.now(), null, true)));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM backlog_runs WHERE process = 'old'", Integer.class))
			.isZero();
	}

	@Test
	void aTableOfAnEarlierSnapshotGetsTheColumnsOfWhoAskedAndKeepsItsRuns() {
		org.springframework.jdbc.core.JdbcTemplate jdbc = new org.springframework.jdbc.core.JdbcTemplate(
				postgres.dataSource());
		jdbc.execute("CREATE TABLE early_runs (slot text PRIMARY KEY, run text NOT NULL, process text NOT NULL, "
				+ "sequence bigint NOT NULL, job text NOT NULL, group_name text NOT NULL, partition integer, node_id text "
				+ "NOT NULL, epoch bigint NOT NULL, started_at timestamptz NOT NULL, ended_at timestamptz, outcome text, "
				+ "error text, expire_at timestamptz NOT NULL)");
		jdbc.update("INSERT INTO early_runs VALUES ('p:jobs#nightly:-:0', 'p-0', 'p', 1, 'jobs#nightly', 'reports', "
				+ "NULL, 'n1', 4, now(), now(), 'success', NULL, now() + interval '1 day')");
		JdbcRunHistory history = history("early_", Duration.ofDays(1));
		history.save(List.of(new RunRecord("p-op1", "p", 1, "operator#drain", "default", null, "n1", 0, T0, T0,
				RunOutcome.SUCCESS, null, "alice", "10.0.0.7", true)));
		assertThat(history.find(RunQuery.latest(10))).extracting(RunRecord::job, RunRecord::requestedBy)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("jobs#nightly", null),
					org.assertj.core.groups.Tuple.tuple("operator#drain", "alice"));
		history.initialize(); // again, with the columns there: nothing more to add
	}

	private static JdbcRunHistory history(String prefix, Duration retention) {
		JdbcRunHistory history = new JdbcRunHistory(postgres.dataSource(),
				JdbcStoreSettings.defaults().withTablePrefix(prefix), retention, 3);
		history.initialize();
		return history;
	}

	private static RunRecord run(long sequence, Instant startedAt, RunOutcome outcome, boolean first) {
		return new RunRecord("p-" + sequence, "p", sequence, "jobs#nightly", "reports", null, "n1", 4, startedAt,
				(outcome != null) ? startedAt.plusMillis(10) : null, outcome, null, null, null, first);
	}

}
