package dev.membership.engine.placement;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.term.Unit;
import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.PlacementPolicy;
import dev.membership.spi.PlacementPolicy.Demand;

/**
 * The placement as this node last read it from the roster (or wrote it, as the
 * coordinator), and what it means for this node: which units it may try for, and which it
 * holds but must hand over. Placement is advice: a unit's lease decides who owns it, so
 * nothing here can make two nodes own one unit. Changed by the loop; read from any
 * thread.
 * <p>
 * A unit placed on this node: try for it (when its lease is released or has expired).
 * Placed on another node: leave it, unless that node has just released it, or is no
 * longer live here: then the node the policy would place it on without that node tries,
 * so that a graceful leave or a crash hands over without waiting for the coordinator, and
 * to the node the coordinator will choose. A plain group nobody has placed yet (no
 * coordinator, or one that does not place): every member races for it, as without
 * placement; a partition nobody has placed waits for the coordinator.
 */
public final class Assignments {

	private static final Logger log = LoggerFactory.getLogger(Assignments.class);

	/** How many members' placements without them {@link #successor} keeps at once. */
	private static final int MAX_LEAVERS_KEPT = 16;

	private final String selfId;

	private final Steering steering = new Steering();

	private final PlacementPolicy policy;

	private volatile Map<String, GroupAssignment> placed = Map.of();

	private volatile @Nullable String coordinator;

	private volatile long placedVersion;

	/**
	 * The live members' ids of the last member list asked about, by that list's identity;
	 * from any thread.
	 */
	private volatile @Nullable LiveIds liveIds;

	/**
	 * The placements without a member {@link #successor} worked out lately; from any
	 * thread.
	 */
	private volatile @Nullable Without without;

	// read from any thread (a stop)
	private final Set<String> mismatchesSaid = ConcurrentHashMap.newKeySet();

	public Assignments(String selfId, PlacementPolicy policy) {
		this.selfId = selfId;
		this.policy = policy;
	}

	/** An operator's steering of the placement, applied while this node coordinates. */
	public Steering steering() {
		return this.steering;
	}

	public PlacementPolicy policy() {
		return this.policy;
	}

	/**
	 * Takes the placement of roster {@code version}, read or written, by
	 * {@code coordinator}.
	 */
	public void take(@Nullable String coordinator, Map<String, GroupAssignment> assignments, long version) {
		this.coordinator = coordinator;
		this.placed = Map.copyOf(assignments);
		this.placedVersion = version;
	}

	/**
	 * The roster version whose placement this node holds (0: none read yet): what its
	 * changes start from.
	 */
	public long placedVersion() {
		return this.placedVersion;
	}

	public Map<String, GroupAssignment> placed() {
		return this.placed;
	}

	/** Whether the placement says anything of {@code unit}'s group. */
	boolean isPlaced(Unit unit) {
		return this.placed.containsKey(unit.group());
	}

	/**
	 * Who the placement puts on {@code unit}: null when nobody, or when its group is not
	 * placed.
	 */
	public @Nullable String owner(Unit unit) {
		GroupAssignment assignment = this.placed.get(unit.group());
		if (assignment == null) {
			return null;
		}
		if (assignment.partitions() != unit.partitions()) {
			if (this.mismatchesSaid.add(unit.group())) {
				log.error(
						"Node {} has {} partition(s) of group '{}' but the cluster's coordinator places {}: it takes "
								+ "none of them until every member agrees (membership.partitions.{})",
						this.selfId, unit.partitions(), unit.group(), assignment.partitions(), unit.group());
			}
			return null;
		}
		return assignment.owner(unit.partition());
	}

	/**
	 * Whether this node holds {@code unit} against the placement, which names another
	 * node for it.
	 */
	public boolean placedElsewhere(Unit unit) {
		if (unit.isDefault()) {
			return false;
		}
		return isPlaced(unit) && !this.selfId.equals(owner(unit));
	}

	/**
	 * Whether this node may try for {@code unit} now. {@code released}: its release was
	 * just told, by {@code releasedBy} (null: not said, taken as the node it is placed
	 * on), naming {@code successor} (a move: only that node tries, whatever this node's
	 * placement says, which may be older than the mover's); {@code live}: the members as
	 * this node knows them. A release by another node than the placed one is a move to
	 * the placed one: only it tries.
	 */
	public boolean mayCompete(Unit unit, boolean released, @Nullable String releasedBy, @Nullable String successor,
			List<Member> live) {
		if (unit.isDefault()) {
			return true;
		}
		if (released && successor != null) {
			return this.selfId.equals(successor);
		}
		if (!isPlaced(unit)) {
			return !unit.isPartition();
		}
		String owner = owner(unit);
		if (this.selfId.equals(owner)) {
			return true;
		}
		boolean gone = owner != null && !liveIds(live).contains(owner);
		boolean releasedByOwner = released && (releasedBy == null || releasedBy.equals(owner));
		if (owner == null || !(releasedByOwner || gone)) {
			return false;
		}
		return this.selfId.equals(successor(unit, owner, live));
	}

	/**
	 * Who should take {@code unit} over when this node leaves, from this node's view:
	 * where the policy would place it without this node (what every other node works out
	 * too); for the default group (everyone's, placed by nobody), the first other live
	 * member by id: the one the notice goes to, though any member told may try for the
	 * default group (a soak of the simulator found member lists that never converged when
	 * only the named one might). Null (anyone who takes part) for a plain group nobody
	 * placed. From any thread.
	 */
	public @Nullable String successorOnLeave(Unit unit, List<Member> live) {
		if (isPlaced(unit)) {
			return successor(unit, this.selfId, live);
		}
		if (!unit.isDefault()) {
			return null;
		}
		return live.stream()
			.filter((m) -> m.live() && !m.nodeId().equals(this.selfId))
			.map(Member::nodeId)
			.min(String::compareTo)
			.orElse(null);
	}

	/**
	 * Where the policy would place {@code unit} without {@code leaving}, from this node's
	 * view of the members. The placement without a member is worked out once per member
	 * for all its units (a leaver's or a crashed member's hundreds of partitions ask one
	 * after another), and again only once the placement, its coordinator or the members
	 * changed.
	 */
	@Nullable String successor(Unit unit, String leaving, List<Member> live) {
		Map<String, GroupAssignment> placedNow = this.placed;
		String keeper = this.coordinator;
		Without last = this.without;
		if (last == null || last.placed() != placedNow || !Objects.equals(last.coordinator(), keeper)
				|| !last.live().equals(live)) {
			last = new Without(placedNow, keeper, List.copyOf(live), Map.of());
		}
		Map<String, GroupAssignment> next = last.byLeaver().get(leaving);
		if (next == null) {
			next = placeWithout(leaving, placedNow, keeper, live);
			Map<String, Map<String, GroupAssignment>> byLeaver = new HashMap<>(last.byLeaver());
			if (byLeaver.size() >= MAX_LEAVERS_KEPT) {
				// a mass departure: the recent ones are what is asked about
				byLeaver.clear();
			}
			byLeaver.put(leaving, next);
			this.without = new Without(placedNow, keeper, last.live(), Map.copyOf(byLeaver));
		}
		GroupAssignment placedNext = next.get(unit.group());
		return (placedNext != null && placedNext.partitions() == unit.partitions()) ? placedNext.owner(unit.partition())
				: null;
	}

	private Map<String, GroupAssignment> placeWithout(String leaving, Map<String, GroupAssignment> placedNow,
			@Nullable String keeper, List<Member> live) {
		List<Member> staying = live.stream().filter((m) -> m.live() && !m.nodeId().equals(leaving)).toList();
		Map<String, @Nullable List<@Nullable String>> owners = new TreeMap<>();
		placedNow.forEach((group, assignment) -> {
			List<@Nullable String> kept = new ArrayList<>(assignment.owners());
			kept.replaceAll((o) -> Objects.equals(o, leaving) ? null : o);
			owners.put(group, kept);
		});
		Map<String, Integer> fixed = (keeper != null && !keeper.equals(leaving)) ? Map.of(keeper, 1) : Map.of();
		Map<String, Integer> counts = new TreeMap<>();
		placedNow.forEach((group, assignment) -> counts.put(group, assignment.partitions()));
		return this.policy.place(demands(counts, staying, owners), fixed);
	}

	/**
	 * The ids of the live members of {@code live}: made once per member list (a node asks
	 * for each of its units every interval, and a scan of the members for each made every
	 * interval cost units times members).
	 */
	private Set<String> liveIds(List<Member> live) {
		LiveIds last = this.liveIds;
		if (last != null && last.of() == live) {
			return last.ids();
		}
		Set<String> ids = new HashSet<>();
		live.forEach((m) -> {
			if (m.live()) {
				ids.add(m.nodeId());
			}
		});
		this.liveIds = new LiveIds(live, ids);
		return ids;
	}

	/** A member list and its live members' ids. */
	private record LiveIds(List<Member> of, Set<String> ids) {
	}

	/**
	 * The placements without a member worked out (by the member left out), and what they
	 * were worked out from.
	 */
	private record Without(Map<String, GroupAssignment> placed, @Nullable String coordinator, List<Member> live,
			Map<String, Map<String, GroupAssignment>> byLeaver) {
	}

	/**
	 * What the policy is asked: each group's count, the live members that take part with
	 * it, and the owners now.
	 */
	static List<Demand> demands(Map<String, Integer> counts, Collection<Member> live,
			Map<String, @Nullable List<@Nullable String>> owners) {
		List<Demand> demands = new ArrayList<>();
		counts.forEach((group, count) -> {
			SortedSet<String> eligible = new TreeSet<>();
			for (Member m : live) {
				if (m.live() && takesPart(m, group, count)) {
					eligible.add(m.nodeId());
				}
			}
			List<@Nullable String> now = owners.get(group);
			if (now == null || now.size() != count) {
				now = new ArrayList<>(Collections.nCopies(count, null));
			}
			demands.add(new Demand(group, count, eligible, now));
		});
		return demands;
	}

	/**
	 * Whether {@code member} takes part in {@code group} with {@code count} partitions
	 * (1: a plain group).
	 */
	public static boolean takesPart(Member member, String group, int count) {
		Integer declared = member.partitions().get(group);
		return (count == 1) ? declared == null && member.groups().contains(group) : Objects.equals(declared, count);
	}

	/**
	 * The owner of a plain group's lease now: its holder while the lease holds at
	 * {@code now}, else nobody.
	 */
	static @Nullable String holder(@Nullable LeaseRecord lease, Instant now) {
		if (lease == null || lease.holder() == null || lease.expiresAt() == null || !lease.expiresAt().isAfter(now)) {
			return null;
		}
		return lease.holder().nodeId();
	}

}
