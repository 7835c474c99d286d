package dev.membership.engine.heartbeat;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.clock.ClockSamples;
import dev.membership.engine.election.GroupElection;
import dev.membership.liveness.Member;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRecord;

/**
 * This node as the others see it: id, incarnation, address, groups and start; what its
 * documents say of it.
 */
public final class ThisNode {

	private final String nodeId;

	private final String incarnation;

	private final Supplier<@Nullable Holder> holder;

	private final Supplier<Collection<GroupElection>> groups;

	private final Map<String, Integer> partitions;

	private final ClockSamples samples;

	/**
	 * Whether an operator drained the node: it then declares nothing, so that nothing is
	 * placed on it.
	 */
	private final BooleanSupplier drained;

	public ThisNode(String nodeId, String incarnation, Supplier<@Nullable Holder> holder,
			Supplier<Collection<GroupElection>> groups, Map<String, Integer> partitions, ClockSamples samples,
			BooleanSupplier drained) {
		this.drained = drained;
		this.nodeId = nodeId;
		this.incarnation = incarnation;
		this.holder = holder;
		this.groups = groups;
		this.partitions = partitions;
		this.samples = samples;
	}

	public String nodeId() {
		return this.nodeId;
	}

	public String incarnation() {
		return this.incarnation;
	}

	/**
	 * Who holds a lease when this node does: id, incarnation and address (set when the
	 * node starts).
	 */
	public Holder holder() {
		Holder h = this.holder.get();
		if (h == null) {
			throw new IllegalStateException("Node " + this.nodeId + " has not started");
		}
		return h;
	}

	/**
	 * Every unit this node takes part in: its plain groups' leaderships and its
	 * partitioned groups' partitions.
	 */
	public Collection<GroupElection> groups() {
		return this.groups.get();
	}

	/**
	 * The names of the groups it takes part in, plain and partitioned (not the
	 * partitions' lease names).
	 */
	List<String> groupNames() {
		return this.groups.get().stream().map((g) -> g.unit().group()).distinct().sorted().toList();
	}

	/** The lease names of its plain groups. */
	public List<String> plainGroupNames() {
		return this.groups.get().stream().filter((g) -> !g.unit().isPartition()).map(GroupElection::name).toList();
	}

	/** Its partitioned groups, with their partition counts. */
	public Map<String, Integer> partitions() {
		return this.partitions;
	}

	/** Its start in database time; null before its first contact with the store. */
	@Nullable Instant startedAt() {
		return this.samples.startedAt();
	}

	/**
	 * The groups it declares, for the placement: all of them, or only the default group
	 * while drained.
	 */
	private List<String> declaredGroups() {
		return this.drained.getAsBoolean() ? List.of(MembershipSettings.DEFAULT_GROUP) : groupNames();
	}

	/** The partitioned groups it declares: none while drained. */
	private Map<String, Integer> declaredPartitions() {
		return this.drained.getAsBoolean() ? Map.of() : this.partitions;
	}

	/** Its node document (the store stamps {@code updatedAt}). */
	NodeRecord document() {
		return new NodeRecord(this.nodeId, this.incarnation, holder().address(), startedAt(), null, declaredGroups(),
				declaredPartitions());
	}

	/** Its roster entry, live, with {@code lastHeartbeat}. */
	public Member member(@Nullable Instant lastHeartbeat) {
		return new Member(this.nodeId, this.incarnation, holder().address(), startedAt(), lastHeartbeat,
				declaredGroups(), true, declaredPartitions());
	}

	/**
	 * Whether {@code entry}, when it is this very process's, tells its groups and
	 * partitions as its document does (an entry the keeper made from this node's leases
	 * alone tells only the groups it holds).
	 */
	public boolean isDescribedBy(Member entry) {
		return !this.incarnation.equals(entry.incarnation())
				|| (Set.copyOf(entry.groups()).equals(Set.copyOf(declaredGroups()))
						&& entry.partitions().equals(declaredPartitions()));
	}

	/** Whether {@code members} lists this very process as live. */
	public boolean isListedIn(List<Member> members) {
		return members.stream()
			.anyMatch((m) -> m.live() && m.nodeId().equals(this.nodeId) && this.incarnation.equals(m.incarnation()));
	}

	/** The default group, when this node leads it: then it keeps the roster. */
	public @Nullable GroupElection keeperGroup() {
		for (GroupElection group : this.groups.get()) {
			if (group.name().equals(MembershipSettings.DEFAULT_GROUP) && group.isLeader()) {
				return group;
			}
		}
		return null;
	}

	/**
	 * Whether it leads a plain group: then its renewals keep it live (the keeper reads
	 * those leases).
	 */
	public boolean leadsAny() {
		return this.groups.get().stream().anyMatch((g) -> !g.unit().isPartition() && g.isLeader());
	}

}
