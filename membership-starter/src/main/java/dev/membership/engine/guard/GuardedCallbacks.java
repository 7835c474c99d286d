package dev.membership.engine.guard;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.membership.spi.BalancedPlacement;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.PlacementPolicy;

/**
 * The metrics, leadership observers and placement policy a node is given, as the engine
 * calls them: each in turn, and what one throws is logged (its first failure with the
 * stack trace, later ones at debug) and goes no further, so that a term that began is
 * armed to end, a renewal moves its deadline and a reply's job goes on whatever that code
 * does.
 */
public final class GuardedCallbacks {

	private GuardedCallbacks() {
	}

	public static ElectionMetrics metrics(List<ElectionMetrics> all) {
		List<Guarded<ElectionMetrics>> each = all.stream().map((m) -> new Guarded<>("metrics", m)).toList();
		return new ElectionMetrics() {

			@Override
			public void acquisition(String group, AcquisitionOutcome outcome) {
				each.forEach((m) -> m.call("acquisition", (target) -> target.acquisition(group, outcome)));
			}

			@Override
			public void renewal(String group, RenewalOutcome outcome) {
				each.forEach((m) -> m.call("renewal", (target) -> target.renewal(group, outcome)));
			}

			@Override
			public void clockJumped(Duration jump) {
				each.forEach((m) -> m.call("clockJumped", (target) -> target.clockJumped(jump)));
			}

			@Override
			public void runsDropped(long count) {
				each.forEach((m) -> m.call("runsDropped", (target) -> target.runsDropped(count)));
			}

			@Override
			public void firesMissed(String group, String job, long count) {
				each.forEach((m) -> m.call("firesMissed", (target) -> target.firesMissed(group, job, count)));
			}

		};
	}

	public static LeadershipObserver observer(List<LeadershipObserver> all) {
		List<Guarded<LeadershipObserver>> each = all.stream()
			.map((o) -> new Guarded<>("leadership observer", o))
			.toList();
		return new LeadershipObserver() {

			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
				each.forEach((o) -> o.call("started", (target) -> target.started(nodeId, group, epoch, atNanos)));
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
				each.forEach((o) -> o.call("ended", (target) -> target.ended(nodeId, group, epoch, atNanos)));
			}

		};
	}

	/**
	 * The placement policy, falling back to {@link BalancedPlacement} for a call that
	 * throws or answers nothing: a policy is a pure function, so every node falls back
	 * alike, and placement is advice (a unit's lease decides its owner), so the fallback
	 * cannot give a unit to two nodes. Without it the coordinator never wrote the roster
	 * and a leaving node never released its leases.
	 */
	public static PlacementPolicy placement(PlacementPolicy policy) {
		if (policy instanceof BalancedPlacement) {
			return policy;
		}
		PlacementPolicy fallback = new BalancedPlacement();
		Guarded<PlacementPolicy> guarded = new Guarded<>("placement policy", policy);
		return (demands, fixed) -> {
			Map<String, GroupAssignment> placed = guarded.apply("place (placed with BalancedPlacement instead)",
					(target) -> target.place(demands, fixed));
			return (placed != null) ? placed : fallback.place(demands, fixed);
		};
	}

}
