package dev.membership.broadcast;

/** Counts of broadcast traffic, for metrics. */
public interface BroadcastMetrics {

	enum Sent {

		DELIVERED, FAILED

	}

	enum Received {

		ACCEPTED, DUPLICATE, REJECTED

	}

	/** Broadcast is in use: create every series at zero. */
	default void register() {
	}

	default void sent(Sent outcome) {
	}

	default void received(Received outcome) {
	}

	static BroadcastMetrics none() {
		return new BroadcastMetrics() {
		};
	}

}
