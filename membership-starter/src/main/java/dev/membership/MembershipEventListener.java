package dev.membership;

/**
 * Receives a node's events. An exception thrown here is logged and never reaches the election loop.
 */
@FunctionalInterface
public interface MembershipEventListener {

	void onEvent(MembershipEvent event);

	static MembershipEventListener none() {
		return (event) -> {
		};
	}

}
