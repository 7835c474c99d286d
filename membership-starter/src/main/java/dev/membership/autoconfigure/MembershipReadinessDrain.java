package dev.membership.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;

import dev.membership.engine.MembershipNode;

/**
 * Follows the application's readiness ({@code membership.follow-readiness}): while it
 * refuses traffic the node is drained (it holds and takes no group or partition), and
 * once it accepts traffic again that drain ends; an operator's drain is apart from it and
 * outlasts it. Each is recorded as the readiness' ({@code readiness#drain},
 * {@code readiness#undrain}), not an operator's. The starter's own contribution to
 * readiness (waiting for the first heartbeat) never drains it, and neither does the
 * refusal Spring Boot publishes as the context closes (its source is the context): that
 * is the graceful stop's business.
 */
class MembershipReadinessDrain implements ApplicationListener<AvailabilityChangeEvent<?>> {

	private static final Logger log = LoggerFactory.getLogger(MembershipReadinessDrain.class);

	private final MembershipNode node;

	private final ApplicationContext context;

	MembershipReadinessDrain(MembershipNode node, ApplicationContext context) {
		this.node = node;
		this.context = context;
	}

	@Override
	public void onApplicationEvent(AvailabilityChangeEvent<?> event) {
		if (!(event.getState() instanceof ReadinessState state) || event.getSource() instanceof MembershipReadinessGate
				|| event.getSource() == this.context) {
			return;
		}
		if (state == ReadinessState.REFUSING_TRAFFIC) {
			log.info("The application refuses traffic: membership node {} drains until it accepts traffic again "
					+ "(membership.follow-readiness)", this.node.nodeId());
		}
		this.node.followReadiness(state == ReadinessState.ACCEPTING_TRAFFIC);
	}

}
