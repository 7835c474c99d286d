package dev.membership.event;

/**
 * Everything a node tells the application. Published in order, one at a time, on the
 * node's event thread; in a Spring application they arrive as ordinary application events
 * ({@code @EventListener}).
 */
public interface MembershipEvent {

	/** The node that observed (and publishes) the event. */
	String observerNodeId();

}
