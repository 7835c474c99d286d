package dev.membership.engine;

/**
 * Where a node is in its life. Moves only forward: NEW, RUNNING, DRAINING (a graceful stop waits for leader-only
 * work while the loop keeps renewing), STOPPING (leases being released, no more ticks), STOPPED. Apart from that, an
 * operator may drain a running node (it takes no lease until undrained) and undo it.
 */
final class Lifecycle {

	enum Phase {

		NEW, RUNNING, DRAINING, STOPPING, STOPPED

	}

	private volatile Phase phase = Phase.NEW;

	/** An operator's drain: the node stays up and a member, hands over what it holds and takes nothing. */
	private volatile boolean drained;

	Phase phase() {
		return this.phase;
	}

	/** Whether the loop renews and heartbeats: while running, and while leader-only work drains. */
	boolean ticks() {
		Phase p = this.phase;
		return p == Phase.RUNNING || p == Phase.DRAINING;
	}

	/** Whether the node may take a lease. */
	boolean competes() {
		return this.phase == Phase.RUNNING && !this.drained;
	}

	boolean isDrained() {
		return this.drained;
	}

	/** Drains ({@code true}) or undoes it; returns whether that changed anything. */
	synchronized boolean drained(boolean drained) {
		boolean changed = this.drained != drained;
		this.drained = drained;
		return changed;
	}

	/** Moves from {@code from} to {@code to}; false when the node is elsewhere. */
	synchronized boolean move(Phase from, Phase to) {
		if (this.phase != from) {
			return false;
		}
		this.phase = to;
		return true;
	}

	/** Moves to STOPPED from wherever the node is; returns the phase it was in. */
	synchronized Phase halt() {
		Phase was = this.phase;
		this.phase = Phase.STOPPED;
		return was;
	}

}
