package dev.membership.engine.fires;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.term.Term;
import dev.membership.leadership.LeadershipTerm.Execution;
import dev.membership.engine.term.Unit;
import dev.membership.spi.Fire;

/**
 * A fire as its runner gets it: the unit and term it was fired under, the job it ends,
 * and the fires that begin its run (no registry to find it in, nothing to cast).
 */
record TermFire(Unit unit, String job, Instant instant, long epoch, Term term, ScheduledFires fires) implements Fire {

	@Override
	public @Nullable Execution tryBegin(boolean interruptible, Duration maxRunTime) {
		return this.fires.tryBegin(this, interruptible, maxRunTime);
	}

	@Override
	public @Nullable Execution tryBeginDetached(Runnable onEnd, Duration maxRunTime) {
		return this.fires.tryBeginDetached(this, onEnd, maxRunTime);
	}

	@Override
	public String toString() {
		return "fire of " + this.job + " at " + this.instant + " (" + this.unit.leaseName() + ", epoch " + this.epoch
				+ ")";
	}

	@Override
	public String group() {
		return this.unit.group();
	}

	@Override
	public @Nullable Integer partition() {
		return this.unit.isPartition() ? this.unit.partition() : null;
	}

}
