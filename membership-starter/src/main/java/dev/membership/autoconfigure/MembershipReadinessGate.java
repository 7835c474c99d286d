package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;

import dev.membership.Membership;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.liveness.NodeReadyEvent;

/**
 * Keeps the application's readiness at REFUSING_TRAFFIC (OUT_OF_SERVICE on the readiness
 * probe) until this node has made its first read of the cluster, for at most
 * {@code timeout}: it does not hold up startup, it only answers Boot's ACCEPTING_TRAFFIC
 * with REFUSING_TRAFFIC until then. When the timeout passes first (the database is down
 * at start, say), the node reports ready anyway and says why: user requests should not
 * wait for membership.
 */
class MembershipReadinessGate implements MembershipEventListener {

	private static final Logger log = LoggerFactory.getLogger(MembershipReadinessGate.class);

	private final Membership membership;

	private final ApplicationEventPublisher publisher;

	private final Duration timeout;

	private boolean holding;

	private boolean nodeReady;

	private boolean closed;

	/**
	 * Ends the wait at the timeout; cancelled when the node gets ready, someone else
	 * refuses, or the context closes.
	 */
	private Timer timer;

	MembershipReadinessGate(Membership membership, ApplicationEventPublisher publisher, Duration timeout) {
		this.membership = membership;
		this.publisher = publisher;
		this.timeout = timeout;
	}

	@EventListener
	public synchronized void onReadiness(AvailabilityChangeEvent<ReadinessState> event) {
		if (event.getSource() == this) {
			return;
		}
		if (event.getState() == ReadinessState.REFUSING_TRAFFIC) {
			// someone else refuses (the application, a shutdown): never ours to turn back
			stopHolding();
			return;
		}
		if (!this.closed && !this.nodeReady && !this.membership.status().ready()) {
			if (!this.holding) {
				// a thread of its own only while holding: it ends when the wait does (the
				// JDK's delayed executor would keep a scheduler thread for good, and run
				// the task on the common pool)
				Timer timer = new Timer("membership-readiness-" + this.membership.nodeId(), true);
				timer.schedule(new TimerTask() {

					@Override
					public void run() {
						onTimeout(timer);
					}

				}, Math.max(1, this.timeout.toMillis()));
				this.timer = timer;
			}
			this.holding = true;
			log.info("Not ready yet: membership node {} has not reached the store (waiting at most {})",
					this.membership.nodeId(), this.timeout);
			AvailabilityChangeEvent.publish(this.publisher, this, ReadinessState.REFUSING_TRAFFIC);
		}
	}

	@Override
	public void onEvent(MembershipEvent event) {
		if (event instanceof NodeReadyEvent) {
			onNodeReady();
		}
	}

	@EventListener
	public synchronized void onClosed(ContextClosedEvent event) {
		this.closed = true;
		stopHolding();
	}

	private void stopHolding() {
		this.holding = false;
		if (this.timer != null) {
			this.timer.cancel(); // its thread ends; the task never runs if it has not
			this.timer = null;
		}
	}

	/**
	 * At the timeout of {@code mine}: nothing when that wait ended meanwhile (another may
	 * have begun since).
	 */
	private synchronized void onTimeout(Timer mine) {
		if (this.timer != mine) {
			// whoever ended the wait cancels its timer (the node's readiness: once it
			// told the application)
			return;
		}
		mine.cancel();
		this.timer = null;
		if (this.holding && !this.nodeReady && !this.closed) {
			this.holding = false;
			this.nodeReady = true; // not gated again
			log.warn(
					"Ready without membership: node {} has not reached the store within {} ({}); serving requests "
							+ "anyway, it will join and compete for leadership once the store answers "
							+ "(membership.readiness.timeout)",
					this.membership.nodeId(), this.timeout, this.membership.status().lastError());
			AvailabilityChangeEvent.publish(this.publisher, this, ReadinessState.ACCEPTING_TRAFFIC);
		}
	}

	/**
	 * On the node's reactions lane: the application's readiness listeners are told on the
	 * gate's own thread, so that one that is slow (a service registry's, say) or throws
	 * holds up none of the node's reactions.
	 */
	private synchronized void onNodeReady() {
		this.nodeReady = true;
		if (this.holding) {
			Timer timer = this.timer;
			this.holding = false;
			this.timer = null; // the timeout's task, if it runs, finds the wait over
			timer.schedule(new TimerTask() {

				@Override
				public void run() {
					try {
						accept();
					}
					finally {
						timer.cancel(); // its thread ends
					}
				}

			}, 0);
		}
	}

	/**
	 * On the gate's thread, after the node got ready: ready, unless the context closed
	 * meanwhile.
	 */
	private void accept() {
		synchronized (this) {
			if (this.closed) {
				return;
			}
		}
		AvailabilityChangeEvent.publish(this.publisher, this, ReadinessState.ACCEPTING_TRAFFIC);
	}

}
