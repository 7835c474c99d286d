package dev.membership.autoconfigure;

import org.springframework.context.SmartLifecycle;

import dev.membership.engine.MembershipNode;

/**
 * Joins the cluster after the web server started (its port is part of the advertised address) and leaves before the
 * web server stops, so that a graceful shutdown hands leadership over at once.
 */
class MembershipLifecycle implements SmartLifecycle {

	static final int PHASE = MembershipAutoConfiguration.LIFECYCLE_PHASE;

	private final MembershipNode node;

	private volatile boolean running;

	MembershipLifecycle(MembershipNode node) {
		this.node = node;
	}

	@Override
	public void start() {
		this.node.start();
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.node.stop(this.node.settings().leaseDuration());
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
