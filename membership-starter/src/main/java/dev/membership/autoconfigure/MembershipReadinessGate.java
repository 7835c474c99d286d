package dev.membership.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.event.EventListener;

import dev.membership.Membership;
import dev.membership.MembershipEvent;
import dev.membership.MembershipEventListener;
import dev.membership.liveness.NodeReadyEvent;

/**
 * Keeps the application's readiness at REFUSING_TRAFFIC (OUT_OF_SERVICE on the readiness probe) until this node has
 * made its first heartbeat and member listing, for at most {@code timeout}: it does not hold up startup, it only
 * answers Boot's ACCEPTING_TRAFFIC with REFUSING_TRAFFIC until then. When the timeout passes first (the database is
 * down at start, say), the node reports ready anyway and says why: user requests should not wait for membership.
 */
public class MembershipReadinessGate implements MembershipEventListener {

	private static final Logger log = LoggerFactory.getLogger(MembershipReadinessGate.class);

	private final Membership membership;

	private final ApplicationEventPublisher publisher;

	private final Duration timeout;

	private boolean holding;

	private boolean nodeReady;

	public MembershipReadinessGate(Membership membership, ApplicationEventPublisher publisher, Duration timeout) {
		this.membership = membership;
		this.publisher = publisher;
		this.timeout = timeout;
	}

	@EventListener
	public synchronized void onReadiness(AvailabilityChangeEvent<ReadinessState> event) {
		if (event.getSource() == this || event.getState() != ReadinessState.ACCEPTING_TRAFFIC) {
			return;
		}
		if (!this.nodeReady && !this.membership.status().ready()) {
			if (!this.holding) {
				Executor later = CompletableFuture.delayedExecutor(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
				CompletableFuture.runAsync(this::onTimeout, later);
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

	private synchronized void onTimeout() {
		if (this.holding && !this.nodeReady) {
			this.holding = false;
			this.nodeReady = true; // not gated again
			log.warn("Ready without membership: node {} has not reached the store within {} ({}); serving requests "
					+ "anyway, it will join and compete for leadership once the store answers "
					+ "(membership.readiness.timeout)", this.membership.nodeId(), this.timeout,
					this.membership.status().lastError());
			AvailabilityChangeEvent.publish(this.publisher, this, ReadinessState.ACCEPTING_TRAFFIC);
		}
	}

	private synchronized void onNodeReady() {
		this.nodeReady = true;
		if (this.holding) {
			this.holding = false;
			AvailabilityChangeEvent.publish(this.publisher, this, ReadinessState.ACCEPTING_TRAFFIC);
		}
	}

}
