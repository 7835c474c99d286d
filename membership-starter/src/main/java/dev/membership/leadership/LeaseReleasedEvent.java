package dev.membership.leadership;

import dev.membership.MembershipEvent;

/** This node released its lease of {@code group} in the database (resign or shutdown): the lease is free now. */
public record LeaseReleasedEvent(String observerNodeId, String group, long epoch) implements MembershipEvent {
}
