package dev.membership.liveness;

import dev.membership.event.MembershipEvent;

/**
 * {@code member} stopped being live (left, crashed, or restarted as a new incarnation) as
 * seen by the observer.
 */
public record MemberLeftEvent(String observerNodeId, Member member) implements MembershipEvent {
}
