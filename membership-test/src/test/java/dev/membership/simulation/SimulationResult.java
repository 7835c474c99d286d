package dev.membership.simulation;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one simulation saw: the transitions (terms begun), the leader-only runs (and how
 * many began while a run of an earlier term still ran after a fault, which fencing must
 * then protect), the scheduled job's fires run, the steps (events run), the virtual time,
 * the faults by kind, and the first violation with the trace that led to it (null when
 * every invariant held).
 */
record SimulationResult(long seed, int nodes, int groups, long transitions, long leaderOnlyRuns,
		long overlapsAfterFaults, long scheduledFires, long steps, Duration virtualTime,
		Map<Simulation.Fault, Integer> faults, int[] clockJumps, long unsettledSteps, String violation,
		List<String> trace) {

	boolean failed() {
		return this.violation != null;
	}

	String summary() {
		return "seed " + this.seed + ": " + this.nodes + " nodes, " + this.groups + " group(s), " + this.transitions
				+ " transitions, " + this.leaderOnlyRuns + " leader-only runs (" + this.overlapsAfterFaults
				+ " overlapping one after a fault), " + this.scheduledFires + " scheduled fires run, " + this.steps
				+ " steps (" + this.unsettledSteps + " with the lease checks off after a clock jump), "
				+ this.virtualTime.toMinutes() + " virtual min" + (failed() ? ", VIOLATION: " + this.violation : "");
	}

	/** How to run this seed again. */
	String replay() {
		return "./mvnw -pl membership-test -am test -Dsurefire.failIfNoSpecifiedTests=false "
				+ "-Dtest=ElectionSimulationTests#replay -Dmembership.simulation.replay -Dmembership.simulation.seed="
				+ this.seed;
	}

}
