package dev.membership.liveness;

import dev.membership.MembershipEvent;

/** This node made its first successful heartbeat and member listing: it knows the cluster. Published once. */
public record NodeReadyEvent(String observerNodeId) implements MembershipEvent {
}
