package dev.membership.engine.history;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.LongConsumer;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;

/**
 * The runs that wait to be written to the history, oldest first, at most
 * {@code capacity}: past it the oldest is dropped, and each run dropped is counted once.
 * A batch taken for a write that failed goes back ahead of the runs that arrived
 * meanwhile, so what is dropped is still the oldest. Thread-safe: runs begin and end on
 * any thread, the loop takes and puts back.
 */
final class PendingRuns {

	private final int capacity;

	private final LongConsumer dropped;

	/** By run id, oldest first; guarded by this. */
	private LinkedHashMap<String, PendingRun> pending = new LinkedHashMap<>();

	PendingRuns(int capacity, LongConsumer dropped) {
		this.capacity = capacity;
		this.dropped = dropped;
	}

	/** Adds a run that began (or one that ended, if it is not waiting already). */
	synchronized void offer(PendingRun run) {
		if (this.pending.containsKey(run.id())) {
			return;
		}
		this.pending.put(run.id(), run);
		trim();
	}

	/** Records how a run ended and adds it if it is not waiting already. */
	synchronized void end(PendingRun run, @Nullable Instant endedAt, RunOutcome outcome, @Nullable String error) {
		run.endedAt = endedAt;
		run.outcome = outcome;
		run.error = error;
		offer(run);
	}

	/**
	 * Everything that waits, oldest first, as records; none wait afterwards. Empty when
	 * none wait.
	 */
	synchronized Batch take(String process) {
		List<PendingRun> runs = new ArrayList<>(this.pending.values());
		List<RunRecord> records = new ArrayList<>(runs.size());
		runs.forEach((run) -> records.add(run.record(process)));
		this.pending.clear();
		return new Batch(runs, records);
	}

	/**
	 * A batch was written: the runs whose first record it held have their start written.
	 */
	synchronized void written(Batch batch) {
		for (int i = 0; i < batch.runs.size(); i++) {
			if (batch.records.get(i).first()) {
				batch.runs.get(i).startWritten = true;
			}
		}
	}

	/**
	 * A batch could not be written: it waits again, ahead of what arrived since, the
	 * oldest dropped past capacity.
	 */
	synchronized void putBack(Batch batch) {
		LinkedHashMap<String, PendingRun> merged = new LinkedHashMap<>();
		batch.runs.forEach((run) -> merged.put(run.id(), run));
		// a run that ended meanwhile keeps its older place
		this.pending.forEach(merged::putIfAbsent);
		this.pending = merged;
		trim();
	}

	private void trim() {
		long count = 0;
		Iterator<PendingRun> oldest = this.pending.values().iterator();
		while (this.pending.size() > this.capacity && oldest.hasNext()) {
			PendingRun run = oldest.next();
			oldest.remove();
			if (!run.dropped) {
				run.dropped = true;
				count++;
			}
		}
		if (count > 0) {
			this.dropped.accept(count);
		}
	}

	/**
	 * What one write carries: the runs and, in the same order, their records as taken.
	 */
	record Batch(List<PendingRun> runs, List<RunRecord> records) {

		boolean isEmpty() {
			return this.runs.isEmpty();
		}

	}

}
