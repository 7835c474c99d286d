package dev.membership.simulation;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import dev.membership.spi.LeadershipObserver;
import dev.membership.engine.MembershipNode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;

/**
 * What must hold after every step of a simulation, checked against the store's own state
 * and the server's clock:
 * <ul>
 * <li>at most one node believes it leads a group (belief as {@code isLeader()} answers
 * it, deadline included);</li>
 * <li>a node that believes it leads holds the group's lease in the store, with its epoch,
 * and the lease has not expired by the server's clock: a belief never outlives its lease,
 * and never rests on an epoch the store moved past;</li>
 * <li>epochs strictly increase per group, and no two acquisitions share one.</li>
 * </ul>
 * Also the observer of every node: it counts the transitions (terms begun).
 */
final class SafetyInvariants implements LeadershipObserver {

	private final MembershipStore store;

	private final Consumer<Supplier<String>> trace;

	private final Map<String, Long> lastEpoch = new HashMap<>();

	private final Map<String, Long> lastStoreEpoch = new HashMap<>();

	private final Map<String, Long> lastTermStart = new HashMap<>();

	private final LongSupplier virtualNow;

	private long transitions;

	private String violation;

	SafetyInvariants(MembershipStore store, Consumer<Supplier<String>> trace, LongSupplier virtualNow) {
		this.store = store;
		this.trace = trace;
		this.virtualNow = virtualNow;
	}

	/** When the last term of {@code group} began, in virtual time (0: none yet). */
	long lastTermStart(String group) {
		return this.lastTermStart.getOrDefault(group, 0L);
	}

	long transitions() {
		return this.transitions;
	}

	/** The first violation seen, or null. */
	String violation() {
		return this.violation;
	}

	@Override
	public void started(String nodeId, String group, long epoch, long atNanos) {
		this.transitions++;
		this.lastTermStart.put(group, this.virtualNow.getAsLong());
		this.trace.accept(() -> nodeId + " leads " + group + " epoch " + epoch);
		Long before = this.lastEpoch.put(group, epoch);
		if (before != null && epoch <= before) {
			fail(Invariant.EPOCHS_RISE.violation(
					nodeId + " began a term of group " + group + " with epoch " + epoch + ", not above " + before));
		}
	}

	@Override
	public void ended(String nodeId, String group, long epoch, long atNanos) {
		this.trace.accept(() -> nodeId + " ends " + group + " epoch " + epoch);
	}

	/**
	 * Checks every node of {@code nodes} (running, paused or stopped) at server time
	 * {@code serverNow}; the checks that tie a belief to the store's lease only when
	 * {@code leasesReadable} (not across a jump of the database's clock, which leaves
	 * leases written in the other clock: see {@link DatabaseClock}).
	 */
	void check(List<MembershipNode> nodes, Iterable<String> groups, Instant serverNow,
			ToDoubleFunction<MembershipNode> clockRate, boolean leasesReadable) {
		if (this.violation != null) {
			return;
		}
		for (String group : groups) {
			Optional<LeaseRecord> lease = this.store.findLease(group);
			if (lease.isPresent()) {
				Long seen = this.lastStoreEpoch.put(group, lease.get().epoch());
				if (seen != null && lease.get().epoch() < seen) {
					fail(Invariant.EPOCHS_RISE.violation("the store's epoch of group " + group + " went back from "
							+ seen + " to " + lease.get().epoch()));
				}
			}
			MembershipNode leader = null;
			for (MembershipNode node : nodes) {
				LeadershipTerm term = Simulation.belief(node, group).orElse(null);
				if (term == null) {
					continue;
				}
				if (leader != null) {
					fail(Invariant.ONE_BELIEVER.violation(
							leader.nodeId() + " and " + node.nodeId() + " both believe they lead group " + group));
					return;
				}
				leader = node;
				LeaseRecord held = lease.orElse(null);
				if (!leasesReadable) {
					continue;
				}
				if (held == null || held.holder() == null || !held.holder().nodeId().equals(node.nodeId())
						|| !held.holder().incarnation().equals(node.incarnation())) {
					fail(Invariant.BELIEF_MATCHES_LEASE.violation(node.nodeId() + " believes it leads group " + group
							+ " (epoch " + term.epoch() + ") but the store's lease is " + describe(held)));
				}
				else if (held.epoch() != term.epoch()) {
					fail(Invariant.BELIEF_MATCHES_LEASE.violation(node.nodeId() + " believes it leads group " + group
							+ " with epoch " + term.epoch() + " but the store is at epoch " + held.epoch()));
				}
				else {
					// until the next event only a renewal can move either, so check when
					// the belief will end: by the node's clock, at its rate, in server
					// time; it must not be after the lease expires
					Instant beliefEnds = serverNow
						.plusNanos((long) Math.ceil(term.remaining().toNanos() / clockRate.applyAsDouble(node)));
					if (beliefEnds.isAfter(held.expiresAt())) {
						fail(Invariant.BELIEF_ENDS_BEFORE_LEASE
							.violation(node.nodeId() + " believes it leads group " + group + " (epoch " + term.epoch()
									+ ") until " + beliefEnds + " but its lease expires at " + held.expiresAt()
									+ " (server time " + serverNow + ")"));
					}
				}
			}
		}
	}

	/** Without incarnations (random), so that a replay reads the same. */
	private static String describe(LeaseRecord lease) {
		if (lease == null || lease.holder() == null) {
			return "free";
		}
		return "held by " + lease.holder().nodeId() + " with epoch " + lease.epoch() + " until " + lease.expiresAt();
	}

	void fail(String what) {
		if (this.violation == null) {
			this.violation = what;
		}
	}

}
