package dev.membership.engine.election;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.events.EventDispatch;
import dev.membership.engine.placement.Assignments;
import dev.membership.engine.term.Runs;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.LeaderInfo;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;

/**
 * The units this node takes part in, by lease name: a plain group's leadership (its
 * name), or one partition ({@code group#partition}), each with its {@link GroupElection}.
 * Joined from any thread; read from any thread.
 */
public final class Units {

	private final Map<String, GroupElection> byLease = new ConcurrentHashMap<>();

	private final MembershipSettings settings;

	private final MonotonicClock clock;

	private final NodeRuntime runtime;

	private final EventDispatch events;

	private final LeadershipObserver observer;

	private final Runs runs;

	public Units(MembershipSettings settings, MonotonicClock clock, NodeRuntime runtime, EventDispatch events,
			LeadershipObserver observer, Runs runs) {
		this.settings = settings;
		this.runs = runs;
		this.clock = clock;
		this.runtime = runtime;
		this.events = events;
		this.observer = observer;
		settings.groups().forEach(this::join);
		settings.partitions().forEach((group, count) -> {
			for (int p = 0; p < count; p++) {
				add(new Unit(group, p, count));
			}
		});
	}

	/**
	 * Takes part in the plain group {@code group} (a partitioned group's partitions are
	 * this node's already).
	 */
	public void join(String group) {
		String problem = MembershipSettings.groupNameProblem(group);
		if (problem != null) {
			throw new IllegalArgumentException("Cannot compete for group '" + group + "': " + problem);
		}
		if (this.settings.partitions().containsKey(group)) {
			throw new IllegalArgumentException("Cannot compete for group '" + group + "' as a whole: it is a "
					+ "partitioned group, whose partitions the coordinator places (work of its partitions runs with "
					+ "@ForEachOwnedPartition or partitions(\"" + group + "\").runIfOwner)");
		}
		add(Unit.group(group));
	}

	/** Whether {@code group} is a partitioned group of this node. */
	public boolean isPartitioned(String group) {
		return this.settings.partitions().containsKey(group);
	}

	/**
	 * The election of the plain group {@code group}, for an operation on it as a whole (a
	 * resign).
	 * @throws IllegalArgumentException for a partitioned group, one of its partitions'
	 * lease names, or a group this node does not compete for, each with what to do
	 * instead
	 */
	public GroupElection plainGroup(String group) {
		Integer partitions = this.settings.partitions().get(group);
		if (partitions != null) {
			throw new IllegalArgumentException("Group '" + group + "' is partitioned (" + partitions + " partitions): "
					+ "no node leads it as a whole. Release one of its partitions (ClusterOperations.release, or POST "
					+ "/actuator/cluster/release {\"group\": \"" + group + "\", \"partition\": <n>})");
		}
		GroupElection election = this.byLease.get(group);
		if (election == null || election.unit().isPartition()) {
			throw new IllegalArgumentException("Node " + this.settings.nodeId() + " does not compete for a group '"
					+ group + "'; its groups are " + new TreeSet<>(plainGroups())
					+ (election != null ? " (a partition is released with ClusterOperations.release)" : ""));
		}
		return election;
	}

	/**
	 * The election of {@code partition} of the partitioned group {@code group}, for an
	 * operation on it (a release).
	 * @throws IllegalArgumentException when this node has no such partitioned group, or
	 * it has no such partition
	 */
	public GroupElection partition(String group, int partition) {
		Integer count = this.settings.partitions().get(group);
		if (count == null) {
			throw new IllegalArgumentException("Node " + this.settings.nodeId() + " has no partitioned group '" + group
					+ "'; its partitioned groups are " + new TreeSet<>(this.settings.partitions().keySet())
					+ " (a plain group is resigned, not released)");
		}
		if (partition < 0 || partition >= count) {
			throw new IllegalArgumentException(
					"Group '" + group + "' has partitions 0 to " + (count - 1) + ", not " + partition);
		}
		return this.byLease.get(new Unit(group, partition, count).leaseName());
	}

	private Set<String> plainGroups() {
		return this.byLease.values()
			.stream()
			.filter((g) -> !g.unit().isPartition())
			.map((g) -> g.unit().group())
			.collect(Collectors.toSet());
	}

	private void add(Unit unit) {
		this.byLease.computeIfAbsent(unit.leaseName(), (name) -> new GroupElection(unit, this.settings.nodeId(),
				this.clock, this.runtime, this.events, this.observer, this.runs));
	}

	public Map<String, GroupElection> byLease() {
		return this.byLease;
	}

	public Collection<GroupElection> all() {
		return this.byLease.values();
	}

	public @Nullable GroupElection get(String lease) {
		return this.byLease.get(lease);
	}

	/**
	 * The current term of the unit named {@code lease}, valid or not; null when this node
	 * does not hold it.
	 */
	public @Nullable Term term(String lease) {
		Found last = this.lastFound;
		if (last != null && last.lease == lease) {
			return last.unit.term();
		}
		GroupElection unit = this.byLease.get(lease);
		if (unit == null) {
			return null;
		}
		if (last == null) {
			this.lastFound = new Found(lease, unit);
		}
		return unit.term();
	}

	/**
	 * The first unit found by {@link #term}, for the very same string (a guard passes its
	 * annotation's, every call): the guarded call of the usual application, one group,
	 * costs no map lookup. Written once, so that threads of several groups never contend
	 * for it; a plain field, since its record's fields are final and units are never
	 * removed.
	 */
	private @Nullable Found lastFound;

	private record Found(String lease, GroupElection unit) {
	}

	/**
	 * The leader of {@code group} as this node knows it: itself (at {@code address}), or
	 * the one it last saw.
	 */
	public Optional<LeaderInfo> leader(String group, @Nullable String address) {
		GroupElection election = this.byLease.get(group);
		if (election == null) {
			return Optional.empty();
		}
		LeaderInfo self = election.self(address);
		return (self != null) ? Optional.of(self) : Optional.ofNullable(election.leader().knownOther());
	}

	/** The groups, plain and partitioned, by their names. */
	public Set<String> groups() {
		return this.byLease.values().stream().map((g) -> g.unit().group()).collect(Collectors.toUnmodifiableSet());
	}

	public PartitionView partitions(String group, Assignments assignments, Supplier<@Nullable String> address) {
		Integer count = this.settings.partitions().get(group);
		if (count == null) {
			throw new IllegalArgumentException("Node " + this.settings.nodeId() + " has no partitioned group '" + group
					+ "' (membership.partitions." + group + "=<count> makes one)");
		}
		return new PartitionView(group, count, this.byLease, assignments, address);
	}

}
