package dev.membership.engine.history;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.membership.spi.RunInfo;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run history's buffer: the newest runs kept past its capacity, each run dropped
 * counted once, and a batch whose write failed put back ahead of the runs that arrived
 * while it was written.
 */
class PendingRunsTests {

	private static final Instant T0 = Instant.parse("2026-11-26T00:00:00Z");

	private final AtomicLong dropped = new AtomicLong();

	private final PendingRuns buffer = new PendingRuns(5, this.dropped::addAndGet);

	private final List<PendingRun> runs = new ArrayList<>();

	@Test
	void pastItsCapacityTheOldestRunsAreDroppedAndCounted() {
		for (int i = 1; i <= 7; i++) {
			this.buffer.offer(run(i));
		}
		assertThat(this.dropped).hasValue(2);
		assertThat(ids(this.buffer.take("p"))).containsExactly("r3", "r4", "r5", "r6", "r7");
	}

	@Test
	void aBatchThatFailedGoesBackAheadOfTheRunsThatArrivedWhileItWasWritten() {
		for (int i = 1; i <= 3; i++) {
			this.buffer.offer(run(i));
		}
		PendingRuns.Batch batch = this.buffer.take("p");
		// r3 ends during the write
		this.buffer.end(this.runs.get(2), T0.plusSeconds(1), RunOutcome.SUCCESS, null);
		for (int i = 4; i <= 7; i++) {
			this.buffer.offer(run(i));
		}
		this.buffer.putBack(batch);

		assertThat(this.dropped).as("two runs lost, each counted once").hasValue(2);
		PendingRuns.Batch next = this.buffer.take("p");
		assertThat(ids(next)).as("the newest five, oldest first").containsExactly("r3", "r4", "r5", "r6", "r7");
		assertThat(next.records().get(0).outcome()).as("r3 with its end").isEqualTo(RunOutcome.SUCCESS);
	}

	@Test
	void aRunWhoseStartAndEndAreBothDroppedIsCountedOnce() {
		PendingRun longRun = run(1);
		this.buffer.offer(longRun);
		for (int i = 2; i <= 6; i++) {
			this.buffer.offer(run(i)); // the long run's start dropped
		}
		assertThat(this.dropped).hasValue(1);
		// its end waits, as the newest; r2 goes
		this.buffer.end(longRun, T0.plusSeconds(9), RunOutcome.SUCCESS, null);
		assertThat(this.dropped).hasValue(2);
		for (int i = 7; i <= 11; i++) {
			this.buffer.offer(run(i)); // r3 to r6 go, then the long run's end
		}
		assertThat(this.dropped).as("r1 to r6, each once").hasValue(6);
		assertThat(ids(this.buffer.take("p"))).containsExactly("r7", "r8", "r9", "r10", "r11");
	}

	@Test
	void aWrittenStartMakesTheRunsNextRecordNotTheFirst() {
		PendingRun r1 = run(1);
		this.buffer.offer(r1);
		PendingRuns.Batch started = this.buffer.take("p");
		assertThat(started.records()).singleElement().satisfies((r) -> assertThat(r.first()).isTrue());
		this.buffer.written(started);
		this.buffer.end(r1, T0.plusSeconds(1), RunOutcome.ERROR, "IllegalStateException: no disk");
		assertThat(this.buffer.take("p").records()).singleElement().satisfies((r) -> {
			assertThat(r.first()).isFalse();
			assertThat(r.outcome()).isEqualTo(RunOutcome.ERROR);
			assertThat(r.error()).isEqualTo("IllegalStateException: no disk");
		});
		assertThat(this.buffer.take("p").isEmpty()).isTrue();
	}

	private PendingRun run(int n) {
		PendingRun run = new PendingRun(new RunInfo("r" + n, "job", "default", null, 0, 1, "n1", T0, false), T0, n);
		this.runs.add(run);
		return run;
	}

	private static List<String> ids(PendingRuns.Batch batch) {
		return batch.records().stream().map(RunRecord::id).toList();
	}

}
