package dev.membership.engine;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.Holder;
import dev.membership.spi.NodeRecord;

/** This node as the others see it: id, incarnation, address, groups and start; what its documents say of it. */
final class Self {

	private final String nodeId;

	private final String incarnation;

	private final Supplier<@Nullable Holder> holder;

	private final Supplier<Collection<GroupElection>> groups;

	private final ClockSamples samples;

	Self(String nodeId, String incarnation, Supplier<@Nullable Holder> holder,
			Supplier<Collection<GroupElection>> groups, ClockSamples samples) {
		this.nodeId = nodeId;
		this.incarnation = incarnation;
		this.holder = holder;
		this.groups = groups;
		this.samples = samples;
	}

	String nodeId() {
		return this.nodeId;
	}

	String incarnation() {
		return this.incarnation;
	}

	/** Who holds a lease when this node does: id, incarnation and address (set when the node starts). */
	Holder holder() {
		Holder h = this.holder.get();
		if (h == null) {
			throw new IllegalStateException("Node " + this.nodeId + " has not started");
		}
		return h;
	}

	Collection<GroupElection> groups() {
		return this.groups.get();
	}

	List<String> groupNames() {
		return this.groups.get().stream().map(GroupElection::name).toList();
	}

	/** Its start in database time; null before its first contact with the store. */
	@Nullable Instant startedAt() {
		return this.samples.startedAt();
	}

	/** Its node document (the store stamps {@code updatedAt}). */
	NodeRecord document() {
		return new NodeRecord(this.nodeId, this.incarnation, holder().address(), startedAt(), null, groupNames());
	}

	/** Its roster entry, live, with {@code lastHeartbeat}. */
	Member member(@Nullable Instant lastHeartbeat) {
		return new Member(this.nodeId, this.incarnation, holder().address(), startedAt(), lastHeartbeat, groupNames(),
				true);
	}

	/** Whether {@code members} lists this very process as live. */
	boolean isListedIn(List<Member> members) {
		return members.stream()
			.anyMatch((m) -> m.live() && m.nodeId().equals(this.nodeId) && this.incarnation.equals(m.incarnation()));
	}

	/** The default group, when this node leads it: then it keeps the roster. */
	@Nullable GroupElection keeperGroup() {
		for (GroupElection group : this.groups.get()) {
			if (group.name().equals(MembershipSettings.DEFAULT_GROUP) && group.isLeader()) {
				return group;
			}
		}
		return null;
	}

	boolean leadsAny() {
		return this.groups.get().stream().anyMatch(GroupElection::isLeader);
	}

}
