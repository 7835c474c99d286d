package dev.membership.autoconfigure;

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
 * Keeps the application's readiness at REFUSING_TRAFFIC until this node has made its first heartbeat and member
 * listing: it does not hold up startup, it only answers Boot's ACCEPTING_TRAFFIC with REFUSING_TRAFFIC until then.
 */
public class MembershipReadinessGate implements MembershipEventListener {

	private static final Logger log = LoggerFactory.getLogger(MembershipReadinessGate.class);

	private final Membership membership;

	private final ApplicationEventPublisher publisher;

	private boolean holding;

	private boolean nodeReady;

	public MembershipReadinessGate(Membership membership, ApplicationEventPublisher publisher) {
		this.membership = membership;
		this.publisher = publisher;
	}

	@EventListener
	public synchronized void onReadiness(AvailabilityChangeEvent<ReadinessState> event) {
		if (event.getSource() == this || event.getState() != ReadinessState.ACCEPTING_TRAFFIC) {
			return;
		}
		if (!this.nodeReady && !this.membership.status().ready()) {
			this.holding = true;
			log.info("Not ready yet: membership node {} has not reached the store", this.membership.nodeId());
			AvailabilityChangeEvent.publish(this.publisher, this, ReadinessState.REFUSING_TRAFFIC);
		}
	}

	@Override
	public void onEvent(MembershipEvent event) {
		if (event instanceof NodeReadyEvent) {
			onNodeReady();
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
