package dev.membership.engine.election;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.term.Runs;
import dev.membership.engine.term.Unit;

/**
 * When a unit is out of this node's race: for a while after a resign or a hung run's
 * hand-over (so that the node does not take its own lease straight back), after it
 * declined a lease granted in the database's old clock, and for as long as a run of the
 * unit hangs here. The numbers of {@link GroupElection}'s HOLDING_OFF state, confined to
 * the loop with it.
 */
final class HoldOff {

	private final Unit unit;

	private final Runs runs;

	/**
	 * How long the node stays out after the hand-over under way ends; 0 for none (a move,
	 * a stop).
	 */
	private long afterHandOverNanos;

	private long untilNanos;

	HoldOff(Unit unit, Runs runs) {
		this.unit = unit;
		this.runs = runs;
	}

	/**
	 * A hand-over begins that keeps the node out for {@code nanos} once it ends (0: not
	 * at all).
	 */
	void afterHandOver(long nanos) {
		this.afterHandOverNanos = nanos;
	}

	/**
	 * The term ended at {@code nowNanos}: whether the hand-over under way holds the node
	 * off from now.
	 */
	boolean startsAfterHandOver(long nowNanos) {
		if (this.afterHandOverNanos <= 0) {
			return false;
		}
		this.untilNanos = nowNanos + this.afterHandOverNanos;
		return true;
	}

	void until(long untilNanos) {
		this.untilNanos = untilNanos;
	}

	/**
	 * Whether a run of the unit hangs on this node: it then stays out, a renewal interval
	 * at a time.
	 */
	boolean hangs() {
		return this.runs.hangs(this.unit);
	}

	/**
	 * The hold-off's end as of {@code nowNanos}, extended while a run hangs; null once it
	 * is over.
	 */
	@Nullable Long remaining(long nowNanos, boolean hangs) {
		if (nowNanos - this.untilNanos < 0) {
			return this.untilNanos;
		}
		if (hangs) {
			this.untilNanos = nowNanos + this.runs.recheckNanos();
			return this.untilNanos;
		}
		return null;
	}

	long recheckNanos() {
		return this.runs.recheckNanos();
	}

}
