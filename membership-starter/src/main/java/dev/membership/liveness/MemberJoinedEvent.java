package dev.membership.liveness;

import dev.membership.event.MembershipEvent;

/** {@code member} became live as seen by {@code observerNodeId}. */
public record MemberJoinedEvent(String observerNodeId, Member member) implements MembershipEvent {
}
