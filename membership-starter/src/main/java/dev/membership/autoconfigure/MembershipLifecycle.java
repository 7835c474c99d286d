package dev.membership.autoconfigure;

import java.time.Duration;

import org.springframework.context.SmartLifecycle;

import dev.membership.engine.MembershipNode;

/**
 * Joins the cluster after the web server started (its port is part of the advertised
 * address) and leaves before the web server stops, so that a graceful shutdown hands
 * leadership over at once. The leave runs on a thread of its own, so that Spring's
 * {@code spring.lifecycle.timeout-per-shutdown-phase} bounds it: the drain takes at most
 * the drain timeout, and the release and goodbye what is left of the phase (at most the
 * lease), less a margin for the rest.
 */
class MembershipLifecycle implements SmartLifecycle {

	static final int PHASE = MembershipAutoConfiguration.LIFECYCLE_PHASE;

	/**
	 * The least a shutdown phase must leave after the drain (checked at startup): the
	 * leave and its margin.
	 */
	static final Duration LEAVE_ALLOWANCE = Duration.ofSeconds(2);

	/**
	 * Kept free at the end of the phase: a late timer's slack, the events' last delivery,
	 * Spring's own work.
	 */
	private static final Duration MARGIN = Duration.ofMillis(1500);

	private final MembershipNode node;

	private final Duration leaveTimeout;

	private volatile boolean running;

	/**
	 * {@code shutdownPhase}: Spring's bound on the phase, longer than the drain timeout
	 * by the allowance at least.
	 */
	MembershipLifecycle(MembershipNode node, Duration shutdownPhase) {
		this.node = node;
		Duration left = shutdownPhase.minus(node.settings().drainTimeout()).minus(MARGIN);
		Duration lease = node.settings().leaseDuration();
		// never below half a second: settings made without the startup check (a
		// MembershipSettings bean of the application's) may leave no time at all, and the
		// leave then gives up at once, as after a crash
		Duration atLeast = Duration.ofMillis(500);
		this.leaveTimeout = (left.compareTo(atLeast) < 0) ? atLeast : (left.compareTo(lease) < 0) ? left : lease;
	}

	/**
	 * How long the release and goodbye may take after the drain before the node stops
	 * waiting for them.
	 */
	Duration leaveTimeout() {
		return this.leaveTimeout;
	}

	@Override
	public void start() {
		this.node.start();
		this.running = true;
	}

	/**
	 * Stops on a thread of its own, which carries the notices to the successors, and says
	 * so when done.
	 */
	@Override
	public void stop(Runnable callback) {
		this.running = false;
		Thread stopping = new Thread(() -> {
			try {
				this.node.stop(this.leaveTimeout);
			}
			finally {
				callback.run();
			}
		}, "membership-stop-" + this.node.nodeId());
		stopping.start();
	}

	@Override
	public void stop() {
		this.running = false;
		this.node.stop(this.leaveTimeout);
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
