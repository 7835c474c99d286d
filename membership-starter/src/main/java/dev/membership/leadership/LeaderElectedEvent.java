package dev.membership.leadership;

import dev.membership.MembershipEvent;

/** This node became the leader of {@code group}; {@code epoch} is the fencing token of its term. */
public record LeaderElectedEvent(String group, String nodeId, long epoch) implements MembershipEvent {

	@Override
	public String observerNodeId() {
		return this.nodeId;
	}

}
