package dev.membership.event;

/**
 * Receives a node's events. In a Spring application, applications listen with
 * {@code @EventListener}; a bean of this type is a reaction of the starter's kind
 * instead: called on the node's own reaction thread, in order, before any application
 * listener, for every event. It must be fast and never block, since it holds up the
 * starter's own reactions (readiness, leadership notices, meters). An exception thrown
 * here is logged and never reaches the election loop. Without Spring,
 * {@code MembershipNode.builder(...).listener(...)} takes the application's listener.
 */
@FunctionalInterface
public interface MembershipEventListener {

	void onEvent(MembershipEvent event);

	static MembershipEventListener none() {
		return (event) -> {
		};
	}

}
