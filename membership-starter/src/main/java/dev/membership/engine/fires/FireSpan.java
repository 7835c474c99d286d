package dev.membership.engine.fires;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A stretch of one schedule's fires, oldest first, in bounded memory whatever its length:
 * the first, the last, how many, and the newest few (what a catch-up may run).
 */
final class FireSpan {

	private final int keep;

	private final ArrayDeque<Instant> newest = new ArrayDeque<>();

	private @Nullable Instant first;

	private @Nullable Instant last;

	private long count;

	FireSpan(int keep) {
		this.keep = keep;
	}

	void add(Instant fire) {
		if (this.first == null) {
			this.first = fire;
		}
		this.last = fire;
		this.count++;
		if (this.keep > 0) {
			if (this.newest.size() == this.keep) {
				this.newest.removeFirst();
			}
			this.newest.addLast(fire);
		}
	}

	boolean isEmpty() {
		return this.count == 0;
	}

	long count() {
		return this.count;
	}

	Instant first() {
		return this.first;
	}

	Instant last() {
		return this.last;
	}

	/** The newest {@code n} fires (at most {@link #FireSpan(int) keep}), oldest first. */
	List<Instant> newest(int n) {
		List<Instant> all = List.copyOf(this.newest);
		return all.subList(Math.max(0, all.size() - n), all.size());
	}

}
