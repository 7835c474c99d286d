package dev.membership.engine;

import dev.membership.liveness.NodeReadyEvent;

/**
 * Whether this node has made its first successful read of the cluster; said once
 * ({@link NodeReadyEvent}).
 */
final class Readiness {

	private final String nodeId;

	private final EventDispatch events;

	private volatile boolean ready;

	Readiness(String nodeId, EventDispatch events) {
		this.nodeId = nodeId;
		this.events = events;
	}

	boolean ready() {
		return this.ready;
	}

	/** On the loop. */
	void reached() {
		if (!this.ready) {
			this.ready = true;
			this.events.publish(new NodeReadyEvent(this.nodeId));
		}
	}

}
