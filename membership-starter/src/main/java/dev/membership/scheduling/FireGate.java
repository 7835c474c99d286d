package dev.membership.scheduling;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.slf4j.LoggerFactory;

import org.springframework.scheduling.TaskScheduler;

/**
 * Runs the fires of one method on the application's scheduler, at most {@code limit} at
 * once: the others wait, in the order they came, for a run to end. A partitioned group's
 * fires come one per partition at each instant, and
 * {@code @ForEachOwnedPartition(concurrency = ...)} bounds how many of them run together.
 * Never blocks a thread.
 */
final class FireGate {

	private final int limit;

	private final Deque<Pending> waiting = new ArrayDeque<>();

	private int running;

	FireGate(int limit) {
		this.limit = limit;
	}

	private record Pending(TaskScheduler scheduler, Consumer<Runnable> run) {
	}

	/**
	 * Runs {@code run} on {@code scheduler} now, or once a run of this gate ended; its
	 * run ends as it returns.
	 */
	void submit(TaskScheduler scheduler, Runnable run) {
		submitAsync(scheduler, (done) -> {
			try {
				run.run();
			}
			finally {
				done.run();
			}
		});
	}

	/**
	 * As {@link #submit(TaskScheduler, Runnable)}, for a run that ends later (a
	 * subscription): {@code run} is given the action to call, once, when it ended.
	 * @throws RuntimeException what the scheduler threw (shutting down, say): then it
	 * never runs
	 */
	void submitAsync(TaskScheduler scheduler, Consumer<Runnable> run) {
		Pending pending = new Pending(scheduler, run);
		synchronized (this) {
			if (this.running >= this.limit) {
				this.waiting.addLast(pending);
				return;
			}
			this.running++;
		}
		try {
			start(pending);
		}
		catch (RuntimeException ex) {
			next(); // its place goes to the next
			throw ex;
		}
	}

	private void start(Pending pending) {
		pending.scheduler().schedule(() -> {
			AtomicBoolean done = new AtomicBoolean();
			Runnable end = () -> {
				if (done.compareAndSet(false, true)) {
					next();
				}
			};
			try {
				pending.run().accept(end);
			}
			catch (RuntimeException | Error ex) {
				end.run();
				throw ex;
			}
		}, Instant.now());
	}

	/** A run ended: the next waiting one takes its place, else the place is free. */
	private void next() {
		for (;;) { // bounded: each turn takes one waiting run off
			Pending next;
			synchronized (this) {
				next = this.waiting.pollFirst();
				if (next == null) {
					this.running--;
					return;
				}
			}
			try {
				start(next);
				return;
			}
			catch (RuntimeException ex) {
				LoggerFactory.getLogger(FireGate.class).warn("A waiting fire could not be run: {}", ex.toString());
			}
		}
	}

}
