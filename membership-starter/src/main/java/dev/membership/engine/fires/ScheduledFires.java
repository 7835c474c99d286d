package dev.membership.engine.fires;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.Units;
import dev.membership.engine.lease.LeaseMarks;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.TermExecution;
import dev.membership.leadership.FireMode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.ScheduledJobInfo;
import dev.membership.spi.FireMark;
import dev.membership.spi.ScheduledJob;

/**
 * The scheduled jobs of this node's units, fired once each cluster-wide: a plain group's
 * by its leader, a partitioned group's by each partition's owner for that partition; at
 * each instant of a job's schedule by the database's clock (never a node's own), a fire's
 * begin and end recorded in the group's {@link FireLedger}, which the renewal after it
 * writes (with {@link FireMode#STRICT}, a renewal before it runs) and the release hands
 * to the next term; as a term begins, the {@link FirePlan} of each job catches up what a
 * failover missed. State changes on the loop; registration and the ends of runs from any
 * thread.
 */
public final class ScheduledFires {

	private static final Logger log = LoggerFactory.getLogger(ScheduledFires.class);

	private final NodeLoop loop;

	private final Units units;

	private final FireNotes notes;

	/**
	 * The renewal of one unit's lease alone, now, which a strict fire waits for: its mark
	 * rides on it.
	 */
	private final BiConsumer<LoopJob, GroupElection> renewAlone;

	/** How far off a fire's timer is armed again as the fire nears. */
	private static final long REARM_NANOS = 2_000_000_000L;

	private final JobRegistry jobs = new JobRegistry();

	private final FireLedgers ledgers = new FireLedgers(this.jobs, this::termBegan);

	public ScheduledFires(NodeLoop loop, Units units, FireNotes notes, BiConsumer<LoopJob, GroupElection> renewAlone) {
		this.loop = loop;
		this.units = units;
		this.notes = notes;
		this.renewAlone = renewAlone;
	}

	/**
	 * A plain group's job, fired by its leader, or a partitioned group's, fired by each
	 * partition's owner for it.
	 * @throws IllegalArgumentException for a group this node has not, or a job scheduled
	 * already
	 */
	public AutoCloseable schedule(ScheduledJob job) {
		if (this.units.isPartitioned(job.group())) {
			this.jobs.addPartitioned(job);
		}
		else {
			this.units.plainGroup(job.group()); // a stranger: refused
			this.jobs.addPlain(job);
		}
		this.loop.submit(LoopJob.of("schedule " + job.job(), () -> {
			for (GroupElection election : this.units.all()) {
				Term term = election.term();
				if (election.unit().group().equals(job.group()) && term != null && term.isValid() && !term.isEnding()) {
					for (JobState fires : this.jobs.forTerm(election.unit())) {
						if (fires.job == job) {
							// leading already: it fires from now on, from the lease's
							// record
							begin(fires, term);
						}
					}
				}
			}
		}));
		return () -> this.loop.submit(LoopJob.of("unschedule " + job.job(), () -> this.jobs.remove(job)));
	}

	/**
	 * On the loop: a term of {@code group} (a plain group or a partition) began, its
	 * ledger inheriting what its lease carried: each of its jobs fires from now on.
	 */
	private void termBegan(GroupElection group, Term term) {
		for (JobState fires : this.jobs.forTerm(group.unit())) {
			begin(fires, term);
		}
	}

	private void begin(JobState fires, Term term) {
		if (fires.term == term) {
			// begun already: registered as the term began, which both the registration
			// and the term see
			return;
		}
		ScheduledJob job = fires.job;
		FireLedger ledger = ledger(fires.unit.leaseName());
		// what has certainly passed by the database's clock: a fire on the edge waits for
		// its timer, never early
		Instant now = this.loop.serverClock().lowerBoundAt(this.loop.clock().nanoTime());
		FireMark mark = ledger.mark(job.job());
		boolean changed = mark != null && !FirePlan.isOf(mark, job.schedule());
		if (changed) {
			log.info(
					"Membership: job '{}' of group '{}' has another schedule than its last fire's ({}, was {}): it "
							+ "starts afresh from its next fire",
					job.job(), job.group(), job.schedule().identity(), mark.schedule());
		}
		else if (mark != null && isFire(job, mark.at())) {
			fires.lastFire = mark.at();
			fires.lastOutcome = mark.ended() ? "ended" : mark.owed() ? "owed" : "running";
		}
		FirePlan.CatchUp plan = FirePlan.onTerm(mark, job.schedule(), job.policy(), now);
		if (mark == null || changed) {
			// where the job starts, for the next term if this one ends before its first
			// fire: that fire is caught up, not lost (not itself a fire: no run, no note)
			ledger.start(new FireMark(job.job(), now.truncatedTo(java.time.temporal.ChronoUnit.MILLIS), true, false,
					job.schedule().identity()));
		}
		plan.notes().forEach((note) -> {
			this.notes.note(job, fires.unit, term.epoch(), note);
			fires.lastFire = note.last();
			fires.lastOutcome = note.outcome().name().toLowerCase(java.util.Locale.ROOT);
		});
		fires.term = term;
		fires.queue.clear();
		fires.queue.addAll(plan.run());
		fires.catchingUp = !plan.run().isEmpty();
		fires.buffered = null;
		// unless a run of an earlier term still goes on: then once it ended
		pump(fires, term);
		at(fires, term, plan.next());
	}

	/**
	 * Arms the timer of the fire at {@code next} (null: none), by the database's clock:
	 * never early. A fire further than {@link #REARM_NANOS} away wakes a second before it
	 * may come, by the estimate as it stands, and is armed again then, by the estimate as
	 * it stands by then: the drift the estimate allows for grows with the wait, and a
	 * timer armed once a month ahead would fire minutes late.
	 */
	private void at(JobState fires, Term term, @Nullable Instant next) {
		fires.nextFire = next;
		if (next == null) {
			return;
		}
		long now = this.loop.clock().nanoTime();
		long earliest = this.loop.serverClock().monotonicWhenMayHavePassed(next) - now;
		if (earliest > REARM_NANOS) {
			this.loop.schedule(() -> LoopJob.of("re-arm fire " + fires.job.job(), () -> {
				if (fires.term == term && !fires.closed && term.isValid()) {
					at(fires, term, next);
				}
			}), earliest - REARM_NANOS / 2);
			return;
		}
		long delay = Math.max(0, this.loop.serverClock().monotonicWhenPassed(next) - now);
		this.loop.schedule(() -> LoopJob.of("fire " + fires.job.job(), () -> {
			if (fires.term == term && !fires.closed && term.isValid()) {
				offer(fires, term, next);
				at(fires, term, fires.job.schedule().next(next));
			}
		}), delay);
	}

	/**
	 * On the loop: the schedule's fire at {@code at} came; it runs now, or waits, or is
	 * skipped (recorded).
	 */
	private void offer(JobState fires, Term term, Instant at) {
		boolean idle = fires.running == null && fires.queue.isEmpty();
		switch (FirePlan.onArrival(idle, fires.catchingUp, fires.buffered != null, fires.job.policy())) {
			case RUN -> {
				fire(fires, term, at);
				// it did not begin (ran already, or the term is ending): nothing else
				// waits
				pump(fires, term);
			}
			case QUEUE -> fires.queue.addLast(at);
			case BUFFER -> {
				fires.buffered = at;
				fires.queue.addLast(at);
			}
			case SKIP -> {
				Instant busy = (fires.running != null) ? fires.running : fires.queue.peekFirst();
				this.notes.skipped(fires.job, fires.unit, term.epoch(), at,
						"the run of the fire of " + busy + " still runs");
				fires.lastFire = at;
				fires.lastOutcome = "skipped";
				fires.skippedThrough = at;
			}
		}
	}

	/**
	 * On the loop: while no run of the job goes on, fires the next that waits, oldest
	 * first.
	 */
	private void pump(JobState fires, Term term) {
		while (fires.running == null && !fires.queue.isEmpty() && fires.term == term) {
			Instant next = fires.queue.pollFirst();
			if (next.equals(fires.buffered)) {
				fires.buffered = null;
			}
			fire(fires, term, next);
		}
		if (fires.running == null && fires.queue.isEmpty()) {
			fires.catchingUp = false;
		}
	}

	/**
	 * On the loop: fires {@code at} under {@code term}, unless the term is over or the
	 * fire ran already (a run of this node's earlier term that ended after the plan was
	 * made); {@code fires.running} says whether it began.
	 */
	private void fire(JobState fires, Term term, Instant at) {
		ScheduledJob job = fires.job;
		if (!term.isValid() || term.isEnding()) {
			// the next term runs it, from the record: owed by a term that lets go (its
			// release says so), found from the last fire after a term that ended
			if (term.isValid()) {
				ledger(fires.unit.leaseName()).owe(new FireMark(job.job(), at, false, true, job.schedule().identity()));
			}
			return;
		}
		FireLedger ledger = ledger(fires.unit.leaseName());
		FireMark mark = ledger.mark(job.job());
		if (mark != null && (mark.at().isAfter(at) || (mark.at().equals(at) && mark.ended()))) {
			return;
		}
		FireMark displaced = ledger.claim(new FireMark(job.job(), at, false, false, job.schedule().identity()));
		if (displaced != null) {
			this.notes.missed(job, fires.unit, term.epoch(), displaced.at(),
					"its runner refused it, and this node led on");
		}
		fires.running = at;
		fires.lastFire = at;
		fires.lastOutcome = "running";
		TermFire fire = new TermFire(fires.unit, job.job(), at, term.epoch(), term, this);
		if (job.policy().mode() != FireMode.STRICT) {
			hand(fires, fire);
			return;
		}
		long version = ledger.version();
		GroupElection election = this.units.byLease().get(fires.unit.leaseName());
		// a renewal that failed (the store did not answer) records nothing here either:
		// the fire is missed, never left running, or every later fire would wait for it
		LoopJob strict = new LoopJob("strict fire of " + job.job(),
				(ex) -> notRecorded(fires, term, at, "the store did not answer: " + ex.getClass().getSimpleName()));
		strict.then((j) -> this.renewAlone.accept(j, election));
		strict.then((j) -> {
			if (ledger.isWritten(version)) {
				hand(fires, fire); // recorded before it runs: not even a crash repeats it
			}
			else {
				notRecorded(fires, term, at, "the renewal that records it did not land");
			}
			j.next();
		});
		this.loop.submit(strict);
	}

	/**
	 * On the loop: a strict fire whose record did not land before its run is not run (at
	 * most once: it may be recorded), and is accounted for: missed, in the history, and
	 * done with in the ledger, so that no successor reports it again as begun on a node
	 * that stopped; the job's next fires go on.
	 */
	private void notRecorded(JobState fires, Term term, Instant at, String why) {
		if (at.equals(fires.running)) {
			fires.running = null;
		}
		if (!term.isValid() || term.isEnding()) {
			// its term lets go (or ended): it never ran, whether recorded or not, and
			// the next term runs it
			ledger(fires.unit.leaseName()).notBegun(fires.job.job(), at);
			fires.lastOutcome = "owed";
			return;
		}
		ledger(fires.unit.leaseName()).ended(new FireMark(fires.job.job(), at, true));
		fires.lastFire = at;
		fires.lastOutcome = "missed";
		this.notes.missed(fires.job, fires.unit, term.epoch(), at,
				"its fire could not be recorded before it ran (STRICT): " + why);
		pump(fires, term);
	}

	private void hand(JobState fires, TermFire fire) {
		try {
			fires.job.runner().accept(fire);
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError error) {
				throw error;
			}
			// a scheduler that stops before the node (Spring's, at shutdown) refuses it:
			// owed to the next term, which runs it; if this one leads on, its next fire
			// records it missed
			log.warn("The runner of job '{}' refused its fire of {}: not run here, owed to the next leader", fire.job(),
					fire.instant(), ex);
			ended(fire, false);
		}
	}

	/**
	 * From the fire's thread: its run is registered with its term, ending with the
	 * execution's close.
	 */
	LeadershipTerm.@Nullable Execution tryBegin(TermFire fire, boolean interruptible, Duration maxRunTime) {
		return begun(fire, fire.term().tryBegin(fire.job(), interruptible, maxRunTime.toNanos(), fire.instant()));
	}

	/**
	 * As {@link #tryBegin(TermFire, boolean, Duration)}, for work on no particular thread
	 * (a reactive pipeline).
	 */
	LeadershipTerm.@Nullable Execution tryBeginDetached(TermFire fire, Runnable onEnd, Duration maxRunTime) {
		return begun(fire, fire.term().tryBeginDetached(fire.job(), onEnd, maxRunTime.toNanos(), fire.instant()));
	}

	private LeadershipTerm.@Nullable Execution begun(TermFire own, @Nullable TermExecution work) {
		if (work == null) {
			this.loop.submit(LoopJob.of("fire of " + own.job() + " not begun", () -> ended(own, false)));
			return null;
		}
		// before its end, and before any release the drain lets go: the release owes the
		// next term only a fire whose run never began
		this.loop.submit(LoopJob.of("fire of " + own.job() + " begun",
				() -> ledger(own.unit().leaseName()).begun(own.job(), own.instant())));
		// submitted before the work counts as finished: the loop records the end before a
		// drain's release
		work.whenClosed(() -> this.loop.submit(LoopJob.of("end of a fire of " + own.job(), () -> ended(own, true))));
		return work;
	}

	/** On the loop: the fire's run ended ({@code began}), or never began. */
	private void ended(TermFire fire, boolean began) {
		if (began) {
			ledger(fire.unit().leaseName()).ended(new FireMark(fire.job(), fire.instant(), true));
		}
		else {
			// its term ended (or hands over) before it began: never run, owed to the next
			ledger(fire.unit().leaseName()).notBegun(fire.job(), fire.instant());
		}
		JobState fires = this.jobs.find(fire.unit().leaseName(), fire.job());
		if (fires == null || !fire.instant().equals(fires.running)) {
			return;
		}
		fires.running = null;
		fires.lastOutcome = began ? "ended" : "owed";
		if (began && fires.queue.isEmpty() && fires.skippedThrough != null) {
			// the fires skipped as overlapping it are done with too: a successor does
			// not run what the history says was skipped
			ledger(fire.unit().leaseName()).skippedThrough(fire.job(), fires.skippedThrough);
			fires.skippedThrough = null;
		}
		Term term = fires.term;
		if (term == null) {
			return;
		}
		pump(fires, term);
	}

	/** Every scheduled job of this node, as it knows it; from any thread. */
	public List<ScheduledJobInfo> jobs() {
		return this.jobs.infos();
	}

	/**
	 * Whether {@code at} is an instant of {@code job}'s schedule (not where it started).
	 */
	private static boolean isFire(ScheduledJob job, Instant at) {
		return at.equals(job.schedule().next(at.minusMillis(1)));
	}

	private FireLedger ledger(String lease) {
		return this.ledgers.of(lease);
	}

	/** What of the fires rides on the lease writes: the ledgers' marks. */
	public LeaseMarks marks() {
		return this.ledgers;
	}

}
