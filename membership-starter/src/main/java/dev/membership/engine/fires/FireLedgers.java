package dev.membership.engine.fires;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.lease.LeaseMarks;
import dev.membership.engine.term.Term;
import dev.membership.spi.FireMark;

/**
 * The {@link FireLedger} of each of this node's units, by lease name, and what of them
 * rides on the lease writes: a take-over's inheritance, the marks a renewal writes and
 * the version it carries, what a release hands to the next term. State changes on the
 * loop.
 */
final class FireLedgers implements LeaseMarks {

	private final Map<String, FireLedger> ledgers = new ConcurrentHashMap<>();

	private final JobRegistry jobs;

	/** What a term's jobs do as it begins, once its ledger inherited. */
	private final BiConsumer<GroupElection, Term> began;

	FireLedgers(JobRegistry jobs, BiConsumer<GroupElection, Term> began) {
		this.jobs = jobs;
		this.began = began;
	}

	FireLedger of(String lease) {
		return this.ledgers.computeIfAbsent(lease, (l) -> new FireLedger());
	}

	@Override
	public void termBegan(GroupElection unit, Term term, List<FireMark> inherited) {
		of(unit.name()).inherit(term.epoch(), inherited);
		this.began.accept(unit, term);
	}

	@Override
	public @Nullable List<FireMark> toRenew(String lease, long epoch) {
		FireLedger ledger = this.ledgers.get(lease);
		return (ledger != null) ? ledger.changed(epoch) : null;
	}

	@Override
	public long version(String lease) {
		FireLedger ledger = this.ledgers.get(lease);
		return (ledger != null) ? ledger.version() : 0;
	}

	@Override
	public void written(String lease, long version) {
		FireLedger ledger = this.ledgers.get(lease);
		if (ledger != null) {
			ledger.written(version);
		}
	}

	@Override
	public @Nullable List<FireMark> toRelease(String lease, long epoch) {
		FireLedger ledger = this.ledgers.get(lease);
		List<FireMark> marks = (ledger != null) ? ledger.forRelease(epoch) : null;
		return (marks != null) ? marks.stream().map((mark) -> owingNext(lease, mark)).toList() : null;
	}

	/**
	 * A job with nothing running nor waiting owes its next fire to the next term: a
	 * graceful hand-over at a fire's instant leaves it to the successor rather than to
	 * the gap between the release and the take-over (where {@code missed = SKIP} would
	 * record it missed).
	 */
	private FireMark owingNext(String lease, FireMark mark) {
		JobState fires = this.jobs.find(lease, mark.job());
		Instant next = (fires != null) ? fires.nextFire : null;
		// and only the very next: a fire between (one that waited, dropped as the term
		// ended) stays the successor's to catch up or record
		if (fires == null || next == null || fires.running != null || !fires.queue.isEmpty() || !mark.ended()
				|| !next.equals(fires.job.schedule().next(mark.at()))) {
			return mark;
		}
		return new FireMark(mark.job(), next, false, true, fires.job.schedule().identity());
	}

}
