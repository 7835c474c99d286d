package dev.membership.engine.loop;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Where a node is in its life. Moves only forward: NEW, RUNNING, DRAINING (a graceful
 * stop waits for leader-only work while the loop keeps renewing), STOPPING (leases being
 * released, no more ticks), STOPPED. Apart from that, an operator or the application's
 * readiness may drain a running node (it takes no lease until undrained) and undo it.
 */
public final class Lifecycle {

	public enum Phase {

		NEW, RUNNING, DRAINING, STOPPING, STOPPED

	}

	private volatile Phase phase = Phase.NEW;

	/**
	 * Why a node is drained: it stays up and a member, hands over what it holds and takes
	 * nothing.
	 */
	public enum DrainCause {

		/** An operator asked ({@code ClusterOperations.drain}). */
		OPERATOR,

		/** The application refuses traffic ({@code membership.follow-readiness}). */
		READINESS

	}

	/**
	 * A drain's change: whether the node was drained before and is after, and by which
	 * causes it is now.
	 */
	public record Drains(boolean before, boolean after, Set<DrainCause> holding) {
	}

	/** The causes the node is drained by; none while it competes. */
	private volatile Set<DrainCause> drains = Set.of();

	public Phase phase() {
		return this.phase;
	}

	/**
	 * Whether the loop renews and heartbeats: while running, and while leader-only work
	 * drains.
	 */
	public boolean ticks() {
		Phase p = this.phase;
		return p == Phase.RUNNING || p == Phase.DRAINING;
	}

	/** Whether the node may take a lease. */
	public boolean competes() {
		return this.phase == Phase.RUNNING && this.drains.isEmpty();
	}

	public boolean isDrained() {
		return !this.drains.isEmpty();
	}

	public boolean isDrainedBy(DrainCause cause) {
		return this.drains.contains(cause);
	}

	/**
	 * Drains ({@code on}) or undoes the drain of {@code cause}; the node stays drained
	 * while any cause holds (an operator's drain outlasts the application's readiness,
	 * and the other way round).
	 */
	public synchronized Drains drain(DrainCause cause, boolean on) {
		Set<DrainCause> before = this.drains;
		EnumSet<DrainCause> after = before.isEmpty() ? EnumSet.noneOf(DrainCause.class) : EnumSet.copyOf(before);
		if (on) {
			after.add(cause);
		}
		else {
			after.remove(cause);
		}
		this.drains = Collections.unmodifiableSet(after);
		return new Drains(!before.isEmpty(), !after.isEmpty(), this.drains);
	}

	/** Moves from {@code from} to {@code to}; false when the node is elsewhere. */
	public synchronized boolean move(Phase from, Phase to) {
		if (this.phase != from) {
			return false;
		}
		this.phase = to;
		return true;
	}

	/** Moves to STOPPED from wherever the node is; returns the phase it was in. */
	public synchronized Phase halt() {
		Phase was = this.phase;
		this.phase = Phase.STOPPED;
		return was;
	}

}
