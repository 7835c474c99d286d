package dev.membership.engine.events;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.liveness.NodeReadyEvent;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.MonotonicClock;

/**
 * Whether this node is ready: it has made its first successful read of the cluster (said
 * once, {@link NodeReadyEvent}), and its attempts to acquire leases are answered. A node
 * whose every acquisition has failed for a lease duration or more, and still fails (a
 * pooler that refuses the take-over's transaction, a role without the right to write the
 * leases), while its heartbeats succeed, is not ready until one is answered (won or lost)
 * or a renewal of a lease it holds passes: it would never lead, though it looks alive. A
 * node that stopped trying (it follows a live leader, or is drained) is not failing. It
 * hears the acquisitions' and renewals' outcomes as the meters do.
 */
public final class Readiness implements ElectionMetrics {

	private static final Logger log = LoggerFactory.getLogger(Readiness.class);

	private static final long NOT_FAILING = Long.MIN_VALUE;

	private final String nodeId;

	private final EventDispatch events;

	private final MonotonicClock clock;

	private final long window;

	/** How recent the last error must be for the node to be failing still. */
	private final long recent;

	private volatile boolean ready;

	/** When the acquisitions began to fail, all of them since (the node's clock). */
	private volatile long failingSince = NOT_FAILING;

	private volatile long lastErrorAt = NOT_FAILING;

	private volatile boolean said;

	/**
	 * @param window how long every acquisition must have failed (a lease duration)
	 * @param interval how often a node that is failing tries (the renewal interval)
	 */
	public Readiness(String nodeId, EventDispatch events, MonotonicClock clock, Duration window, Duration interval) {
		this.nodeId = nodeId;
		this.events = events;
		this.clock = clock;
		this.window = window.toNanos();
		this.recent = interval.multipliedBy(3).toNanos();
	}

	public boolean ready() {
		return this.ready && !failing(this.clock.nanoTime());
	}

	/** On the loop. */
	public void reached() {
		if (!this.ready) {
			this.ready = true;
			this.events.publish(new NodeReadyEvent(this.nodeId));
		}
	}

	@Override
	public void acquisition(String group, AcquisitionOutcome outcome) {
		long now = this.clock.nanoTime();
		if (outcome != AcquisitionOutcome.ERROR) {
			answered();
			return;
		}
		if (this.failingSince == NOT_FAILING || now - this.lastErrorAt > this.recent) {
			// a new run of failures: one after the node stopped trying begins afresh
			this.failingSince = now;
			this.said = false;
		}
		this.lastErrorAt = now;
		if (!this.said && failing(now)) {
			this.said = true;
			log.warn(
					"Membership node {} has failed every attempt to acquire a lease for {} (the last for group '{}'; "
							+ "see lastError in its health): not ready until one is answered",
					this.nodeId, Duration.ofNanos(now - this.failingSince), group);
		}
	}

	@Override
	public void renewal(String group, RenewalOutcome outcome) {
		if (outcome == RenewalOutcome.RENEWED) {
			answered(); // it holds a lease, and the store takes its writes
		}
	}

	private void answered() {
		if (this.said) {
			log.info("Membership node {} acquires leases again: ready", this.nodeId);
		}
		this.failingSince = NOT_FAILING;
		this.said = false;
	}

	/** Failing for the window, and still trying. */
	private boolean failing(long now) {
		long since = this.failingSince;
		return since != NOT_FAILING && now - since >= this.window && now - this.lastErrorAt <= this.recent;
	}

}
