package dev.membership.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
	 * release) is kept, so that a node that leads again never runs a fire twice itself. A
	 * later fire is always the truer mark: a job's fires begin in the order of their
	 * instants, cluster-wide.
	 */
	void inherit(long epoch, List<FireMark> inherited) {
		this.epoch = epoch;
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

	/** The fire at {@code mark.at()} of its job began. */
	void began(FireMark mark) {
		this.marks.put(mark.job(), mark);
		this.version++;
	}

	/**
	 * The fire at {@code mark.at()} ended; a newer fire of the job, begun meanwhile,
	 * stays the mark.
	 */
	void ended(FireMark mark) {
		FireMark current = this.marks.get(mark.job());
		if (current != null && current.at().equals(mark.at()) && !current.ended()) {
			this.marks.put(mark.job(), new FireMark(mark.job(), mark.at(), true));
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
	 * What the release of {@code epoch} writes: every mark, or null when the group never
	 * had any, or for a term the marks are not of (one this node took and never led
	 * under: the lease keeps what it has).
	 */
	@Nullable List<FireMark> forRelease(long epoch) {
		return (epoch != this.epoch || this.marks.isEmpty()) ? null : all();
	}

	private List<FireMark> all() {
		return List.copyOf(new ArrayList<>(this.marks.values()));
	}

}
