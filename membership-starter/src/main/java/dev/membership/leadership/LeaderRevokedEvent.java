package dev.membership.leadership;

import dev.membership.MembershipEvent;

/** This node no longer leads {@code group}; its belief ended no later than the lease could expire in the database. */
public record LeaderRevokedEvent(String group, String nodeId, long epoch, RevocationReason reason)
		implements MembershipEvent {

	@Override
	public String observerNodeId() {
		return this.nodeId;
	}

}
