package dev.membership.autoconfigure;

import org.springframework.context.SmartLifecycle;

import dev.membership.engine.MembershipNode;

/**
 * Joins the cluster after the web server started (its port is part of the advertised address) and leaves before the
 * web server stops, so that a graceful shutdown hands leadership over at once.
 */
public class MembershipLifecycle implements SmartLifecycle {

	/** After the web server starts (DEFAULT_PHASE - 2048), before its graceful shutdown (DEFAULT_PHASE - 1024). */
	public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private final MembershipNode node;

	private volatile boolean running;

	public MembershipLifecycle(MembershipNode node) {
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
