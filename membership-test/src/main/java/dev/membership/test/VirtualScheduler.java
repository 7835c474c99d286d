package dev.membership.test;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

import org.jspecify.annotations.Nullable;

/**
 * Virtual time and what is due in it: events run in order of their time (ties in order of
 * scheduling), and time moves only when an event is taken or {@link #advanceTo} moves it.
 * An event may belong to an {@link Owner} (a node's runtime or lane) that can pause (its
 * events wait, in order, until it resumes) or die (its events are dropped). Nothing here
 * reads a real clock. Not thread-safe: one thread at a time (the
 * {@link SimulatedCluster}'s driver guards it with a lock); {@link #now()} may be read
 * from any thread.
 * <p>
 * The one virtual-time core of the test kit: {@link SimulatedCluster} runs the node under
 * test and its peers on it, and the project's own election simulator runs thousands of
 * seeded fault schedules on it.
 */
public final class VirtualScheduler {

	/** Who an event belongs to. */
	public interface Owner {

		/** Whether the owner's events are dropped when due. */
		boolean isDead();

		/** Whether the owner's events wait until it resumes. */
		boolean isPaused();

		/** Keeps an event of a paused owner until it resumes ({@link #resume}). */
		void defer(Event event);

	}

	/** Something to run at a virtual time. */
	public static final class Event implements Comparable<Event> {

		private long at;

		private long seq;

		private final @Nullable Owner owner;

		private final Runnable task;

		private volatile boolean cancelled;

		Event(long at, long seq, @Nullable Owner owner, Runnable task) {
			this.at = at;
			this.seq = seq;
			this.owner = owner;
			this.task = task;
		}

		/** When it is due, in virtual nanoseconds. */
		public long at() {
			return this.at;
		}

		public @Nullable Owner owner() {
			return this.owner;
		}

		/**
		 * Runs the event's task (what {@link #take} hands out runs this way, on the
		 * taker's thread).
		 */
		public void run() {
			this.task.run();
		}

		/** Calls it off: it will not run (from any thread). */
		public void cancel() {
			this.cancelled = true;
		}

		boolean isVoid() {
			return this.cancelled || (this.owner != null && this.owner.isDead());
		}

		@Override
		public int compareTo(Event other) {
			int byTime = Long.compare(this.at, other.at);
			return (byTime != 0) ? byTime : Long.compare(this.seq, other.seq);
		}

	}

	private final PriorityQueue<Event> queue = new PriorityQueue<>();

	private volatile long now;

	private long seq;

	private long steps;

	/** Virtual nanoseconds since the scheduler began. */
	public long now() {
		return this.now;
	}

	/** How many events have run through {@link #step}. */
	public long steps() {
		return this.steps;
	}

	/** Schedules {@code task} at {@code at}, or now if that has passed. */
	public Event at(long at, @Nullable Owner owner, Runnable task) {
		Event event = new Event(Math.max(at, this.now), this.seq++, owner, task);
		this.queue.add(event);
		return event;
	}

	/** Schedules {@code task} {@code delayNanos} from now. */
	public Event after(long delayNanos, @Nullable Owner owner, Runnable task) {
		return at(this.now + Math.max(0, delayNanos), owner, task);
	}

	/**
	 * Puts deferred events back, due now, in their original order (the same events: they
	 * can still be cancelled).
	 */
	public void resume(List<Event> deferred) {
		List<Event> ordered = new ArrayList<>(deferred);
		ordered.sort(null);
		for (Event event : ordered) {
			event.at = this.now;
			event.seq = this.seq++;
			this.queue.add(event);
		}
	}

	/**
	 * When the earliest event that would still run is due, or null when none is pending.
	 */
	public @Nullable Long nextAt() {
		while (!this.queue.isEmpty() && this.queue.peek().isVoid()) {
			this.queue.poll();
		}
		return this.queue.isEmpty() ? null : this.queue.peek().at;
	}

	/** Moves time to {@code nanos} without running anything; never back. */
	public void advanceTo(long nanos) {
		if (nanos > this.now) {
			this.now = nanos;
		}
	}

	/**
	 * Takes the next event due no later than {@code until} for the caller to run, moving
	 * time to it (never back); cancelled events and those of dead owners are dropped,
	 * those of paused owners deferred. Null when none is due.
	 */
	public @Nullable Event take(long until) {
		while (true) {
			Event event = this.queue.peek();
			if (event == null || event.at > until) {
				return null;
			}
			this.queue.poll();
			advanceTo(event.at);
			if (event.isVoid()) {
				continue;
			}
			if (event.owner != null && event.owner.isPaused()) {
				event.owner.defer(event);
				continue;
			}
			return event;
		}
	}

	/**
	 * Runs the next event due no later than {@code until}, on this thread; returns
	 * whether one was due (and ran, or was dropped or deferred). When none is, time moves
	 * to {@code until}.
	 */
	public boolean step(long until) {
		Event event = this.queue.peek();
		if (event == null || event.at > until) {
			advanceTo(until);
			return false;
		}
		this.queue.poll();
		advanceTo(event.at);
		if (event.isVoid()) {
			return true;
		}
		if (event.owner != null && event.owner.isPaused()) {
			event.owner.defer(event);
			return true;
		}
		this.steps++;
		event.run();
		return true;
	}

}
