package dev.membership.engine.fires;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.FireMark;

/**
 * A plain group's record of its scheduled jobs' last fires, as this node's term keeps it:
 * taken from the lease as the term begins (the marks of jobs this node does not run
 * included, so that they are carried on), changed as fires begin and end, written with
 * the renewal that follows and the release. Confined to the loop.
 */
final class FireLedger {

	private final Map<String, FireMark> marks = new LinkedHashMap<>();

	/**
	 * The jobs whose mark is a fire this term claimed and whose run has not begun yet (it
	 * waits for a scheduler's thread, say): written as begun by a renewal (a crash may
	 * come after the run began), as owed by the release (the term is over: it never
	 * will).
	 */
	private final Set<String> claimed = new HashSet<>();

	/** The jobs whose mark is a fire owed by this term: its runner refused it. */
	private final Set<String> owedHere = new HashSet<>();

	/** Counts the changes; {@link #written} is the count the store has. */
	private long version;

	private long written;

	/**
	 * The epoch of the term the marks belong to (0: none began yet): what its writes
	 * carry, and no other's.
	 */
	private long epoch;

	/**
	 * A term begins on the marks its lease carried, and on what this node knows better: a
	 * fire that one of its own earlier terms began or ended after the lease's mark of
	 * that job (its record of it never reached the lease: the term ended without a
	 * release) is kept (not a fire it owed: another term may have begun it since), so
	 * that a node that leads again never runs a fire twice itself. A later fire is always
	 * the truer mark: a job's fires begin in the order of their instants, cluster-wide.
	 */
	void inherit(long epoch, List<FireMark> inherited) {
		this.epoch = epoch;
		this.claimed.clear();
		this.owedHere.clear();
		Map<String, FireMark> own = new LinkedHashMap<>(this.marks);
		this.marks.clear();
		inherited.forEach((mark) -> this.marks.put(mark.job(), mark));
		boolean knowsBetter = false;
		for (FireMark mine : own.values()) {
			FireMark lease = this.marks.get(mine.job());
			if (lease == null || mine.at().isAfter(lease.at())
					|| (mine.at().equals(lease.at()) && mine.ended() && !lease.ended())) {
				this.marks.put(mine.job(), mine);
				knowsBetter = true;
			}
		}
		this.version++;
		// what the lease has already; else the first renewal writes what this node knows
		// better
		this.written = knowsBetter ? this.version - 1 : this.version;
	}

	@Nullable FireMark mark(String job) {
		return this.marks.get(job);
	}

	/**
	 * Where a job that has no mark yet (or one of another schedule) starts: its next term
	 * catches up from there.
	 */
	void start(FireMark mark) {
		this.marks.put(mark.job(), mark);
		this.version++;
	}

	/**
	 * This term claims the fire {@code mark} (not ended, not owed) of its job; returns
	 * the fire it displaces when that one was owed by this term (its runner refused it,
	 * and this term led on: it never ran), else null.
	 */
	@Nullable FireMark claim(FireMark mark) {
		FireMark displaced = this.marks.put(mark.job(), mark);
		boolean owed = this.owedHere.remove(mark.job());
		this.claimed.add(mark.job());
		this.version++;
		return (owed && displaced != null && displaced.owed() && displaced.at().isBefore(mark.at())) ? displaced : null;
	}

	/** The run of the claimed fire at {@code at} of {@code job} began. */
	void begun(String job, java.time.Instant at) {
		FireMark current = this.marks.get(job);
		if (current != null && current.at().equals(at)) {
			this.claimed.remove(job);
		}
	}

	/**
	 * A fire that came as this term let go, not claimed: owed to the next term, unless
	 * the record is at it or past it already, or owes an earlier one (the next term
	 * catches up from that one).
	 */
	void owe(FireMark owed) {
		FireMark current = this.marks.get(owed.job());
		if (current == null || (current.ended() && current.at().isBefore(owed.at()))) {
			this.marks.put(owed.job(), owed);
			this.version++;
		}
	}

	/**
	 * The claimed fire at {@code at} of {@code job} will not begin under this term: it is
	 * owed to the next.
	 */
	void notBegun(String job, java.time.Instant at) {
		FireMark current = this.marks.get(job);
		if (current != null && current.at().equals(at) && !current.ended() && !current.owed()) {
			this.marks.put(job, current.asOwed());
			this.claimed.remove(job);
			this.owedHere.add(job);
			this.version++;
		}
	}

	/**
	 * The fire at {@code mark.at()} ended; a newer fire of the job, begun meanwhile,
	 * stays the mark.
	 */
	void ended(FireMark mark) {
		FireMark current = this.marks.get(mark.job());
		if (current != null && current.at().equals(mark.at()) && !current.ended()) {
			this.marks.put(mark.job(), current.asEnded());
			this.claimed.remove(mark.job());
			this.owedHere.remove(mark.job());
			this.version++;
		}
	}

	/**
	 * The fires of {@code job} up to {@code at} were skipped as overlapping a run that
	 * has ended: the record moves on to {@code at}, done with, unless it is ahead already
	 * or a fire after the run has begun.
	 */
	void skippedThrough(String job, java.time.Instant at) {
		FireMark current = this.marks.get(job);
		if (current != null && current.ended() && current.at().isBefore(at)) {
			this.marks.put(job, new FireMark(job, at, true, false, current.schedule()));
			this.version++;
		}
	}

	/**
	 * What a renewal under {@code epoch} writes: every mark when any changed since the
	 * last write, else null (the lease keeps its); null for a term the marks are not of.
	 */
	@Nullable List<FireMark> changed(long epoch) {
		return (epoch == this.epoch && this.version != this.written) ? all() : null;
	}

	long version() {
		return this.version;
	}

	/** A write that carried the marks as of {@code version} succeeded. */
	void written(long version) {
		if (version > this.written) {
			this.written = version;
		}
	}

	/** Whether every change up to {@code version} is in the store. */
	boolean isWritten(long version) {
		return this.written >= version;
	}

	/**
	 * What the release of {@code epoch} writes: every mark, a claimed fire whose run
	 * never began owed to the next term (this one is over: it never will), or null when
	 * the group never had any, or for a term the marks are not of (one this node took and
	 * never led under: the lease keeps what it has).
	 */
	@Nullable List<FireMark> forRelease(long epoch) {
		if (epoch != this.epoch || this.marks.isEmpty()) {
			return null;
		}
		List<FireMark> all = new ArrayList<>();
		this.marks.forEach((job, mark) -> all.add(this.claimed.contains(job) ? mark.asOwed() : mark));
		return List.copyOf(all);
	}

	private List<FireMark> all() {
		return List.copyOf(new ArrayList<>(this.marks.values()));
	}

}
