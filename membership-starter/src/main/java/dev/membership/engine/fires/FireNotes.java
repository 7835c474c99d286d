package dev.membership.engine.fires;

import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.fires.FirePlan.Note;
import dev.membership.engine.fires.FirePlan.Outcome;
import dev.membership.engine.history.RunHistory;
import dev.membership.engine.term.Unit;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.ScheduledJob;

/**
 * What the leader records of fires that did not run: in the run history as runs with
 * outcome {@code missed} or {@code skipped} and the reason, counted
 * ({@code membership.runs.missed}), and in the log: never silent.
 */
public final class FireNotes {

	private static final Logger log = LoggerFactory.getLogger(FireNotes.class);

	private final String nodeId;

	private final RunHistory history;

	private final ElectionMetrics metrics;

	public FireNotes(String nodeId, RunHistory history, ElectionMetrics metrics) {
		this.nodeId = nodeId;
		this.history = history;
		this.metrics = metrics;
	}

	void note(ScheduledJob job, Unit unit, long epoch, Note note) {
		String reason = (note.count() == 1) ? note.reason()
				: note.count() + " fires, " + note.first() + " to " + note.last() + ": " + note.reason();
		if (note.outcome() == Outcome.MISSED) {
			log.warn("Membership node {}: job '{}' of {} missed the fire of {} ({})", this.nodeId, job.job(),
					where(unit), note.first(), reason);
			this.metrics.firesMissed(job.group(), job.job(), note.count());
		}
		else {
			log.info("Membership node {}: job '{}' of {} skips the fire of {} ({})", this.nodeId, job.job(),
					where(unit), note.first(), reason);
		}
		this.history.fire(job.job(), job.group(), unit.isPartition() ? unit.partition() : null, this.nodeId, epoch,
				note.first(), note.last(), (note.outcome() == Outcome.MISSED) ? RunOutcome.MISSED : RunOutcome.SKIPPED,
				reason);
	}

	void missed(ScheduledJob job, Unit unit, long epoch, Instant at, String reason) {
		note(job, unit, epoch, new Note(Outcome.MISSED, at, at, 1, reason));
	}

	void skipped(ScheduledJob job, Unit unit, long epoch, Instant at, String reason) {
		note(job, unit, epoch, new Note(Outcome.SKIPPED, at, at, 1, reason));
	}

	private static String where(Unit unit) {
		return unit.isPartition() ? "partition " + unit.partition() + " of group '" + unit.group() + "'"
				: "group '" + unit.group() + "'";
	}

}
