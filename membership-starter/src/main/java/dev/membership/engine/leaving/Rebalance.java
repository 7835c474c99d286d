package dev.membership.engine.leaving;

import java.util.Collection;
import java.util.function.Supplier;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.Lifecycle.Phase;
import dev.membership.engine.placement.Assignments;
import dev.membership.engine.term.Term;
import dev.membership.spi.MembershipSettings;

/**
 * On the loop, after each read of the placement: hands over what this node holds but the
 * placement puts on another node (a move, through the drain as a resign). A term younger
 * than two intervals stays: the placement read may predate it (this node took the unit as
 * the successor of a node that left), and the coordinator has not yet seen its lease.
 */
public final class Rebalance implements Runnable {

	private final Lifecycle lifecycle;

	private final Supplier<Collection<GroupElection>> units;

	private final Assignments assignments;

	private final UnitHandOver handOver;

	private final long settledNanos;

	public Rebalance(MembershipSettings settings, Lifecycle lifecycle, Supplier<Collection<GroupElection>> units,
			Assignments assignments, UnitHandOver handOver) {
		this.lifecycle = lifecycle;
		this.units = units;
		this.assignments = assignments;
		this.handOver = handOver;
		this.settledNanos = settings.renewalInterval().toNanos() * 2;
	}

	@Override
	public void run() {
		if (this.lifecycle.phase() != Phase.RUNNING) {
			return;
		}
		for (GroupElection unit : this.units.get()) {
			Term term = unit.term();
			if (term != null && term.isValid() && !term.isEnding() && term.ageNanos() >= this.settledNanos
					&& this.assignments.placedElsewhere(unit.unit())) {
				this.handOver.move(unit);
			}
		}
	}

}
