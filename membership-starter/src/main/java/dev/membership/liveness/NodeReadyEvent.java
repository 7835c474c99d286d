package dev.membership.liveness;

import dev.membership.event.MembershipEvent;

/**
 * This node made its first successful read of the cluster: it knows the members.
 * Published once.
 */
public record NodeReadyEvent(String observerNodeId) implements MembershipEvent {
}
