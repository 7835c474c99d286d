package dev.membership.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;

import dev.membership.Membership;

/**
 * Follows the application's readiness ({@code membership.follow-readiness}): while it refuses traffic the node is
 * drained (it holds and takes no group or partition), and once it accepts traffic again it is undrained, if this
 * drained it. The starter's own contribution to readiness (waiting for the first heartbeat) never drains it, and
 * neither does the refusal Spring Boot publishes as the context closes (its source is the context): that is the
 * graceful stop's business.
 */
class MembershipReadinessDrain implements ApplicationListener<AvailabilityChangeEvent<?>> {

	private static final Logger log = LoggerFactory.getLogger(MembershipReadinessDrain.class);

	private final Membership membership;

	private final ApplicationContext context;

	/** Whether this drained the node, so that only this undrains it. */
	private volatile boolean drained;

	MembershipReadinessDrain(Membership membership, ApplicationContext context) {
		this.membership = membership;
		this.context = context;
	}

	@Override
	public void onApplicationEvent(AvailabilityChangeEvent<?> event) {
		if (!(event.getState() instanceof ReadinessState state) || event.getSource() instanceof MembershipReadinessGate
				|| event.getSource() == this.context) {
			return;
		}
		if (state == ReadinessState.REFUSING_TRAFFIC && !this.drained) {
			log.info("The application refuses traffic: membership node {} drains until it accepts traffic again "
					+ "(membership.follow-readiness)", this.membership.nodeId());
			this.drained = true;
			this.membership.drain();
		}
		else if (state == ReadinessState.ACCEPTING_TRAFFIC && this.drained) {
			this.drained = false;
			this.membership.undrain();
		}
	}

}
