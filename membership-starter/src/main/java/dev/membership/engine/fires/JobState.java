package dev.membership.engine.fires;

import java.time.Instant;
import java.util.ArrayDeque;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.ScheduledJobInfo;
import dev.membership.spi.ScheduledJob;

/**
 * One scheduled job's state on this node, for a plain group or one partition, for
 * {@link ScheduledFires}: the term it fires under, its run, the fires that wait, and what
 * {@link ScheduledJobInfo} shows. Changed on the loop; the volatile fields are read from
 * any thread.
 */
final class JobState {

	final ScheduledJob job;

	/** The plain group, or the partition, whose fires these are: its lease keeps them. */
	final Unit unit;

	/** The term it fires under now; null while this node does not lead the group. */
	volatile @Nullable Term term;

	/** The fire whose run goes on, or null. */
	@Nullable Instant running;

	/**
	 * What {@link #info()} shows, from any thread: the last fire and what came of it, and
	 * the next.
	 */
	volatile @Nullable Instant lastFire;

	volatile @Nullable String lastOutcome;

	volatile @Nullable Instant nextFire;

	/**
	 * The fire of the schedule held back while a run went on ({@code BUFFER_ONE}),
	 * waiting in {@link #queue}.
	 */
	@Nullable Instant buffered;

	/**
	 * The fires to run once the job's run ends, oldest first: the term's catch-up, then a
	 * buffered one.
	 */
	final ArrayDeque<Instant> queue = new ArrayDeque<>();

	/**
	 * Whether the term's catch-up still runs: with {@code RUN_ALL}, a fire that comes
	 * meanwhile waits its turn rather than being skipped as an overlap.
	 */
	boolean catchingUp;

	/**
	 * The latest fire skipped as overlapping a run, written into the record once no run
	 * is left before it.
	 */
	@Nullable Instant skippedThrough;

	boolean closed;

	JobState(ScheduledJob job, Unit unit) {
		this.job = job;
		this.unit = unit;
	}

	/**
	 * The job as this node knows it; the next fire only while it leads the group. From
	 * any thread.
	 */
	ScheduledJobInfo info() {
		Term current = this.term;
		boolean leading = current != null && current.isValid() && !current.isEnding();
		return new ScheduledJobInfo(this.job.group(), this.unit.isPartition() ? this.unit.partition() : null,
				this.job.job(), this.lastFire, this.lastOutcome, leading ? this.nextFire : null);
	}

}
