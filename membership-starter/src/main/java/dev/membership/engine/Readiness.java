package dev.membership.engine;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.liveness.NodeReadyEvent;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.MonotonicClock;

/**
 * Whether this node is ready: it has made its first successful read of the cluster (said
 * once, {@link NodeReadyEvent}), and its attempts to acquire leases are answered. A node
 * whose every acquisition has failed for a lease duration or more (a pooler that refuses
 * the take-over's transaction, a role without the right to write the leases) while its
 * heartbeats succeed is not ready until one is answered (won or lost): it would never
 * lead, though it looks alive. It hears the acquisitions' outcomes as the meters do.
 */
final class Readiness implements ElectionMetrics {

	private static final Logger log = LoggerFactory.getLogger(Readiness.class);

	private static final long NOT_FAILING = Long.MIN_VALUE;

	private final String nodeId;

	private final EventDispatch events;

	private final MonotonicClock clock;

	private final long window;

	private volatile boolean ready;

	/** When the acquisitions began to fail, all of them since (the node's clock). */
	private volatile long failingSince = NOT_FAILING;

	private volatile boolean said;

	Readiness(String nodeId, EventDispatch events, MonotonicClock clock, Duration window) {
		this.nodeId = nodeId;
		this.events = events;
		this.clock = clock;
		this.window = window.toNanos();
	}

	boolean ready() {
		return this.ready && !failing(this.clock.nanoTime());
	}

	/** On the loop. */
	void reached() {
		if (!this.ready) {
			this.ready = true;
			this.events.publish(new NodeReadyEvent(this.nodeId));
		}
	}

	@Override
	public void acquisition(String group, AcquisitionOutcome outcome) {
		long now = this.clock.nanoTime();
		if (outcome != AcquisitionOutcome.ERROR) {
			if (this.said) {
				log.info("Membership node {} acquires leases again: ready", this.nodeId);
			}
			this.failingSince = NOT_FAILING;
			this.said = false;
			return;
		}
		if (this.failingSince == NOT_FAILING) {
			this.failingSince = now;
		}
		if (!this.said && failing(now)) {
			this.said = true;
			log.warn(
					"Membership node {} has failed every attempt to acquire a lease for {} (the last for group '{}'; "
							+ "see lastError in its health): not ready until one is answered",
					this.nodeId, Duration.ofNanos(now - this.failingSince), group);
		}
	}

	private boolean failing(long now) {
		long since = this.failingSince;
		return since != NOT_FAILING && now - since >= this.window;
	}

}
