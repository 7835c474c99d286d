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

/** What the PostgreSQL history does beyond the contract: a batch that goes round the ring, and the retention. */
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
		batch.add(run(1, T0.plusSeconds(1), RunOutcome.SUCCESS, false)); // the end of a run its slot no longer holds
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
