package dev.membership.engine.election;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.term.Term;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;

/**
 * Ends a unit's terms and says so ({@link UnitEvents#revoked}), once per term, whoever
 * ends it: the loop, the watchdog at a deadline, a stop. Under one lock, so that a
 * revocation is published before the loop can see the term ended and start the next one.
 * The one thing about a term that happens off the loop.
 */
final class TermEnd {

	private static final Logger log = LoggerFactory.getLogger(TermEnd.class);

	private final String group;

	private final String selfId;

	private final MonotonicClock clock;

	private final NodeRuntime runtime;

	private final UnitEvents events;

	private final LeadershipObserver observer;

	/**
	 * The watchdog's timer for the current term's deadline; armed and disarmed by the
	 * loop.
	 */
	private NodeRuntime.@Nullable Timer deadline;

	TermEnd(String group, String selfId, MonotonicClock clock, NodeRuntime runtime, UnitEvents events,
			LeadershipObserver observer) {
		this.group = group;
		this.selfId = selfId;
		this.clock = clock;
		this.runtime = runtime;
		this.events = events;
		this.observer = observer;
	}

	/**
	 * Arms the watchdog for {@code term}'s deadline (again, after a renewal): even while
	 * the loop waits on a store call, the belief ends on time, and the loop hears of it
	 * through {@code settle}.
	 */
	void arm(Term term, Runnable settle) {
		disarm();
		// null once the node is stopping: the stop path ends the beliefs itself, and
		// isValid() is exact anyway
		this.deadline = this.runtime.watchdog().schedule(() -> {
			if (term.isValid()) {
				return; // renewed meanwhile: the loop armed a later deadline
			}
			end(term, RevocationReason.RENEWAL_DEADLINE_PASSED);
			this.runtime.loop().execute(settle);
		}, Math.max(0, term.deadlineNanos() - this.clock.nanoTime()));
	}

	void disarm() {
		if (this.deadline != null) {
			this.deadline.cancel();
			this.deadline = null;
		}
	}

	/**
	 * Ends {@code ending} and publishes its revocation for {@code reason}; true to the
	 * one call that ended it.
	 */
	boolean end(Term ending, RevocationReason reason) {
		synchronized (this) {
			if (!ending.end()) {
				return false;
			}
			this.observer.ended(this.selfId, this.group, ending.epoch(), endedAt(ending));
			this.events.revoked(ending.epoch(), reason);
		}
		if (reason == RevocationReason.RENEWAL_DEADLINE_PASSED || reason == RevocationReason.LEASE_LOST) {
			log.warn("Node {} no longer leads group '{}' (epoch {}): {}", this.selfId, this.group, ending.epoch(),
					reason);
		}
		else {
			log.info("Node {} no longer leads group '{}' (epoch {}): {}", this.selfId, this.group, ending.epoch(),
					reason);
		}
		return true;
	}

	/** Ends {@code ending} (if any) without a word, like a crash. */
	void silently(@Nullable Term ending) {
		if (ending != null && ending.end()) {
			this.observer.ended(this.selfId, this.group, ending.epoch(), endedAt(ending));
		}
	}

	/** When the belief ended: now, or the deadline if that passed first. */
	private long endedAt(Term ending) {
		return Math.min(this.clock.nanoTime(), ending.deadlineNanos());
	}

}
