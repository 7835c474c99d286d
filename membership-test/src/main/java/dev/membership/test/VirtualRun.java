package dev.membership.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

import dev.membership.engine.MembershipNode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.MembershipSettings;

/**
 * How a {@link SimulatedCluster} moves virtual time towards a state a test asked for: one
 * due piece of work at a time, within a bound of virtual time, and, while leader-only
 * work holds up a hand-over of the node under test, waiting in real time (up to the drain
 * timeout) for it to finish, as production would.
 */
final class VirtualRun {

	/**
	 * How many lease durations of virtual time one request may take before it is reported
	 * as not reached.
	 */
	private static final int MAX_INTERVALS = 50;

	private final VirtualTime time;

	private final VirtualDriver driver;

	/**
	 * How long real time may pass for work due at one instant of virtual time (listeners,
	 * leader-only work).
	 */
	private final Duration realTimeout;

	VirtualRun(VirtualTime time, VirtualDriver driver, Duration realTimeout) {
		this.time = time;
		this.driver = driver;
		this.realTimeout = realTimeout;
	}

	/**
	 * Runs what is due now, including events the node under test published from other
	 * threads.
	 */
	void settle() {
		this.driver.awaitIdle(this.realTimeout);
	}

	/**
	 * Moves virtual time until {@code done}; fails naming {@code what} when the bound of
	 * virtual time passes.
	 */
	void until(MembershipNode node, String what, BooleanSupplier done) {
		MembershipSettings settings = node.settings();
		Duration virtualLimit = settings.leaseDuration().multipliedBy(MAX_INTERVALS);
		long limit = this.time.nanoTime() + virtualLimit.toNanos();
		// real time is spent only waiting for leader-only work to end: at most one drain
		// timeout per call
		long waitUntil = System.nanoTime() + settings.drainTimeout().toNanos();
		settle();
		while (!done.getAsBoolean()) {
			long submitted = this.driver.submissions();
			long waitLeft = waitUntil - System.nanoTime();
			if (waitLeft > 0 && handOverWaitsForWork(node)) {
				if (!this.driver.awaitSubmissionAfter(submitted, Duration.ofNanos(waitLeft))) {
					// not ended within the drain timeout: left behind, as in production
					waitUntil = System.nanoTime();
				}
				settle();
				continue;
			}
			if (!this.driver.step(limit, this.realTimeout)) {
				throw new IllegalStateException("The simulated cluster did not reach the state asked for (" + what
						+ ") within " + virtualLimit + " of virtual time");
			}
		}
	}

	/**
	 * Lets {@code duration} of virtual time pass: every renewal, heartbeat and timeout
	 * due meanwhile happens.
	 */
	void advance(Duration duration) {
		this.driver.moveTo(this.time.nanoTime() + duration.toNanos(), this.realTimeout);
	}

	/**
	 * Whether the node under test is handing a group over: its leader-only work may still
	 * be draining.
	 */
	private static boolean handOverWaitsForWork(MembershipNode node) {
		return node.groups()
			.stream()
			.anyMatch((group) -> node.currentTerm(group).filter(LeadershipTerm::isEnding).isPresent())
				|| node.partitionedGroups().stream().anyMatch((group) -> partitionHandedOver(node, group));
	}

	private static boolean partitionHandedOver(MembershipNode node, String group) {
		for (int p = 0; p < node.partitions(group).count(); p++) {
			if (node.partitionTerm(group, p).filter(LeadershipTerm::isEnding).isPresent()) {
				return true;
			}
		}
		return false;
	}

}
