package dev.membership.leadership;

import dev.membership.event.MembershipEvent;

/**
 * An event about one group's leadership, as the node {@link #observerNodeId()} saw it.
 */
public interface GroupEvent extends MembershipEvent {

	String group();

}
