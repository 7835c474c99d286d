package dev.membership.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.FireMark;

/**
 * A plain group's record of its scheduled jobs' last fires, as this node's term keeps it: taken from the lease as the
 * term begins (the marks of jobs this node does not run included, so that they are carried on), changed as fires
 * begin and end, written with the renewal that follows and the release. Confined to the loop.
 */
final class FireLedger {

	private final Map<String, FireMark> marks = new LinkedHashMap<>();

	/** Counts the changes; {@link #written} is the count the store has. */
	private long version;

	private long written;

	/** A term begins on the marks its lease carried. */
	void inherit(List<FireMark> inherited) {
		this.marks.clear();
		inherited.forEach((mark) -> this.marks.put(mark.job(), mark));
		this.version++;
		this.written = this.version; // what the lease has already
	}

	@Nullable FireMark mark(String job) {
		return this.marks.get(job);
	}

	/** The fire at {@code mark.at()} of its job began. */
	void began(FireMark mark) {
		this.marks.put(mark.job(), mark);
		this.version++;
	}

	/** The fire at {@code mark.at()} ended; a newer fire of the job, begun meanwhile, stays the mark. */
	void ended(FireMark mark) {
		FireMark current = this.marks.get(mark.job());
		if (current != null && current.at().equals(mark.at()) && !current.ended()) {
			this.marks.put(mark.job(), new FireMark(mark.job(), mark.at(), true));
			this.version++;
		}
	}

	/** What a renewal writes: every mark when any changed since the last write, else null (the lease keeps its). */
	@Nullable List<FireMark> changed() {
		return (this.version != this.written) ? all() : null;
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

	/** What a release writes: every mark, or null when the group never had any (the lease keeps what it has). */
	@Nullable List<FireMark> forRelease() {
		return this.marks.isEmpty() ? null : all();
	}

	private List<FireMark> all() {
		return List.copyOf(new ArrayList<>(this.marks.values()));
	}

}
