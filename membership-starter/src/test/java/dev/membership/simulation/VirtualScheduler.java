package dev.membership.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The simulation's only thread of control: events in order of virtual time (ties in order of scheduling), run one at
 * a time. Events may belong to a node's runtime, which can pause (its events wait, in order, until it resumes) or die
 * (its events are dropped). Nothing here reads a real clock.
 */
final class VirtualScheduler {

	/** Who an event belongs to: a node's runtime, or nobody (the network, the store, the fault plan). */
	interface Owner {

		boolean isDead();

		boolean isPaused();

		/** Keeps an event of a paused owner until it resumes. */
		void defer(Event event);

	}

	static final class Event implements Comparable<Event> {

		long at;

		long seq;

		final Owner owner;

		final Runnable task;

		boolean cancelled;

		Event(long at, long seq, Owner owner, Runnable task) {
			this.at = at;
			this.seq = seq;
			this.owner = owner;
			this.task = task;
		}

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.seq, other.seq);
		}

	}

	private final PriorityQueue<Event> queue = new PriorityQueue<>();

	private long now;

	private long seq;

	private long steps;

	/** Virtual nanoseconds since the simulation began. */
	long now() {
		return this.now;
	}

	long steps() {
		return this.steps;
	}

	Event at(long at, Owner owner, Runnable task) {
		Event event = new Event(Math.max(at, this.now), this.seq++, owner, task);
		this.queue.add(event);
		return event;
	}

	Event after(long delayNanos, Owner owner, Runnable task) {
		return at(this.now + Math.max(0, delayNanos), owner, task);
	}

	/** Puts deferred events back, due now, in their original order (the same events: a timer can still cancel). */
	void resume(List<Event> deferred) {
		List<Event> ordered = new ArrayList<>(deferred);
		ordered.sort(null);
		for (Event event : ordered) {
			event.at = this.now;
			event.seq = this.seq++;
			this.queue.add(event);
		}
	}

	/**
	 * Runs the next event, if any is due no later than {@code until}; returns whether one ran (or was dropped).
	 * Virtual time moves to the event's time.
	 */
	boolean step(long until) {
		Event event = this.queue.peek();
		if (event == null || event.at > until) {
			this.now = Math.max(this.now, until);
			return false;
		}
		this.queue.poll();
		this.now = event.at;
		if (event.cancelled || (event.owner != null && event.owner.isDead())) {
			return true;
		}
		if (event.owner != null && event.owner.isPaused()) {
			event.owner.defer(event);
			return true;
		}
		this.steps++;
		event.task.run();
		return true;
	}

}
