package dev.membership.engine.fires;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.spi.Fire;

/**
 * A fire as its runner gets it: the unit and term it was fired under, and the job it
 * ends.
 */
record TermFire(Unit unit, String job, Instant instant, long epoch, Term term) implements Fire {

	@Override
	public String group() {
		return this.unit.group();
	}

	@Override
	public @Nullable Integer partition() {
		return this.unit.isPartition() ? this.unit.partition() : null;
	}

}
