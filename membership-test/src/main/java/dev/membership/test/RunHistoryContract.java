package dev.membership.test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link RunHistoryStore} must do, as JUnit 5 tests: extend this class and
 * make a history on fresh collections that keeps {@link #MAX_RUNS} runs per job,
 * partition and process. The MongoDB histories and {@link InMemoryRunHistory} pass it.
 */
public abstract class RunHistoryContract {

	/** The runs per job, partition and process the history under test keeps. */
	protected static final int MAX_RUNS = 3;

	private static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);

	/**
	 * A history on fresh collections that keeps {@link #MAX_RUNS} runs per job, partition
	 * and process.
	 */
	protected abstract RunHistoryStore createHistory();

	private static RunRecord started(String process, long sequence, String job, Integer partition, long atSeconds) {
		return new RunRecord(process + "-" + sequence, process, sequence, job, "reports", partition, "n-" + process, 7,
				T0.plusSeconds(atSeconds), null, null, null, null, null, true);
	}

	private static RunRecord ended(RunRecord run, RunOutcome outcome, String error, boolean first) {
		return new RunRecord(run.id(), run.process(), run.sequence(), run.job(), run.group(), run.partition(),
				run.nodeId(), run.epoch(), run.startedAt(), run.startedAt().plusMillis(250), outcome, error,
				run.requestedBy(), run.requestedFrom(), first);
	}

	@Test
	void runsAreReadNewestFirstWithWhatTheirStartAndEndSaid() {
		RunHistoryStore history = createHistory();
		history.initialize();
		RunRecord first = started("a", 1, "jobs#nightly", null, 0);
		RunRecord second = started("a", 2, "jobs#nightly", null, 10);
		history.save(List.of(first, ended(second, RunOutcome.ERROR, "IllegalStateException: no disk", true)));
		history.save(List.of(ended(first, RunOutcome.SUCCESS, null, false)));

		List<RunRecord> runs = history.find(RunQuery.latest(10));
		assertThat(runs).extracting(RunRecord::id).containsExactly("a-2", "a-1");
		assertThat(runs.get(0).outcome()).isEqualTo(RunOutcome.ERROR);
		assertThat(runs.get(0).error()).isEqualTo("IllegalStateException: no disk");
		assertThat(runs.get(0).endedAt()).isEqualTo(T0.plusSeconds(10).plusMillis(250));
		assertThat(runs.get(1)).satisfies((run) -> {
			assertThat(run.outcome()).isEqualTo(RunOutcome.SUCCESS);
			assertThat(run.job()).isEqualTo("jobs#nightly");
			assertThat(run.group()).isEqualTo("reports");
			assertThat(run.partition()).isNull();
			assertThat(run.nodeId()).isEqualTo("n-a");
			assertThat(run.epoch()).isEqualTo(7);
			assertThat(run.startedAt()).isEqualTo(T0);
			assertThat(run.process()).isEqualTo("a");
			assertThat(run.sequence()).isEqualTo(1);
		});
	}

	@Test
	void anOperatorsActionKeepsWhoAskedAndFromWhere() {
		RunHistoryStore history = createHistory();
		history.initialize();
		RunRecord action = new RunRecord("a-op1", "a", 1, "operator#drain", "default", null, "n-a", 0, T0, T0,
				RunOutcome.SUCCESS, null, "alice", "10.0.0.7", true);
		history.save(List.of(action, ended(started("a", 1, "jobs#nightly", null, 1), RunOutcome.SUCCESS, null, true)));
		assertThat(history.find(new RunQuery("operator#drain", null, null, null, null, 10))).singleElement()
			.satisfies((run) -> {
				assertThat(run.requestedBy()).isEqualTo("alice");
				assertThat(run.requestedFrom()).isEqualTo("10.0.0.7");
				assertThat(run.outcome()).isEqualTo(RunOutcome.SUCCESS);
			});
		assertThat(history.find(new RunQuery("jobs#nightly", null, null, null, null, 10))).singleElement()
			.satisfies((run) -> {
				assertThat(run.requestedBy()).isNull();
				assertThat(run.requestedFrom()).isNull();
				assertThat(run.fireAt()).isNull();
			});
	}

	@Test
	void aScheduledFireKeepsItsInstantAndAMissedOneItsOutcomeAndWhy() {
		RunHistoryStore history = createHistory();
		history.initialize();
		Instant fire = T0.truncatedTo(ChronoUnit.SECONDS);
		RunRecord ran = new RunRecord("a-1", "a", 1, "jobs#nightly", "reports", null, "n-a", 7, T0, T0.plusSeconds(1),
				RunOutcome.SUCCESS, null, null, null, fire, true);
		RunRecord missed = new RunRecord("a-f2", "a", 2, "jobs#nightly", "reports", null, "n-a", 8,
				fire.plusSeconds(10), fire.plusSeconds(30), RunOutcome.MISSED, "3 fires: no node could run them", null,
				null, fire.plusSeconds(10), true);
		history.save(List.of(ran, missed));
		List<RunRecord> runs = history.find(new RunQuery("jobs#nightly", null, null, null, null, 10));
		assertThat(runs).extracting(RunRecord::fireAt).containsExactly(fire.plusSeconds(10), fire);
		assertThat(runs.get(0).outcome()).isEqualTo(RunOutcome.MISSED);
		assertThat(runs.get(0).error()).isEqualTo("3 fires: no node could run them");
	}

	@Test
	void aRunThatNeverEndedStaysStarted() {
		RunHistoryStore history = createHistory();
		history.save(List.of(started("a", 1, "jobs#nightly", null, 0)));
		assertThat(history.find(RunQuery.latest(10))).singleElement().satisfies((run) -> {
			assertThat(run.endedAt()).isNull();
			assertThat(run.outcome()).isNull();
		});
	}

	@Test
	void itKeepsTheNewestRunsOfEachJobPartitionAndProcess() {
		RunHistoryStore history = createHistory();
		for (long n = 1; n <= MAX_RUNS + 2; n++) {
			history.save(List.of(started("a", n, "jobs#nightly", null, n), started("b", n, "jobs#nightly", null, n),
					started("a", n, "jobs#rollup", 4, n)));
		}
		List<RunRecord> runs = history.find(RunQuery.latest(100));
		assertThat(runs).filteredOn((run) -> run.process().equals("a") && run.job().equals("jobs#nightly"))
			.extracting(RunRecord::sequence)
			.containsExactly(5L, 4L, 3L);
		assertThat(runs).filteredOn((run) -> run.process().equals("b")).hasSize(MAX_RUNS);
		assertThat(runs).filteredOn((run) -> run.job().equals("jobs#rollup")).hasSize(MAX_RUNS);
	}

	@Test
	void deploysThatComeAndGoLeaveABoundedNumberOfRunsPerJobAndPartition() {
		RunHistoryStore history = createHistory();
		long at = 0;
		for (int deploy = 1; deploy <= 6; deploy++) {
			for (long n = 1; n <= MAX_RUNS + 1; n++) {
				history.save(List.of(started("p" + deploy, n, "jobs#nightly", 2, ++at),
						started("p" + deploy, n, "jobs#nightly", null, at)));
			}
		}
		List<RunRecord> runs = history.find(RunQuery.latest(100));
		// what the five processes before the last left, cut to the newest; and the last
		// one's ring
		assertThat(runs).filteredOn((run) -> run.partition() == null)
			.extracting(RunRecord::id)
			.containsExactly("p6-4", "p6-3", "p6-2", "p5-4", "p5-3", "p5-2");
		assertThat(runs).filteredOn((run) -> Integer.valueOf(2).equals(run.partition())).hasSize(2 * MAX_RUNS);
	}

	@Test
	void theEndOfARunWhoseSlotWasTakenChangesNothing() {
		RunHistoryStore history = createHistory();
		RunRecord old = started("a", 1, "jobs#nightly", null, 0);
		RunRecord newer = started("a", 1 + MAX_RUNS, "jobs#nightly", null, 30);
		history.save(List.of(old));
		history.save(List.of(newer));
		history.save(List.of(ended(old, RunOutcome.SUCCESS, null, false)));
		assertThat(history.find(RunQuery.latest(10))).filteredOn((run) -> run.id().equals(newer.id()))
			.singleElement()
			.satisfies((run) -> assertThat(run.endedAt()).isNull());
	}

	@Test
	void queriesFilterByJobGroupPartitionNodeAndTimeWithinTheirLimit() {
		RunHistoryStore history = createHistory();
		history.save(List.of(started("a", 1, "jobs#nightly", null, 0), started("b", 1, "jobs#nightly", null, 5),
				started("a", 1, "jobs#rollup", 2, 10), started("a", 1, "jobs#rollup", 3, 15)));
		assertThat(history.find(new RunQuery("jobs#rollup", null, null, null, null, 10)))
			.extracting(RunRecord::partition)
			.containsExactly(3, 2);
		assertThat(history.find(new RunQuery(null, null, 2, null, null, 10))).hasSize(1);
		assertThat(history.find(new RunQuery(null, "reports", null, "n-b", null, 10))).extracting(RunRecord::id)
			.containsExactly("b-1");
		assertThat(history.find(new RunQuery(null, null, null, null, T0.plusSeconds(5), 10))).hasSize(3);
		assertThat(history.find(new RunQuery(null, "other", null, null, null, 10))).isEmpty();
		assertThat(history.find(RunQuery.latest(2))).extracting(RunRecord::startedAt)
			.containsExactly(T0.plusSeconds(15), T0.plusSeconds(10));
	}

}
