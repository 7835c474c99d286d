package dev.membership.simulation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.StoreException;
import dev.membership.test.VirtualScheduler;

/**
 * One node incarnation's runtime in the simulation: its lanes are events on the shared
 * scheduler, its clock runs at its own rate from its own origin, and its store calls
 * cross the {@link Network}. Pausing it holds back all of its events (its calls in flight
 * land when it resumes); halting it drops them.
 */
final class SimulatedRuntime implements NodeRuntime, VirtualScheduler.Owner {

	private final VirtualScheduler scheduler;

	private final Network network;

	private final String nodeId;

	private final double rate;

	private final long origin;

	private final List<VirtualScheduler.Event> deferred = new ArrayList<>();

	private final SimLane loop = new SimLane(true);

	private final SimLane watchdog = new SimLane(true);

	private final SimLane reactions = new SimLane(false);

	private final SimLane application = new SimLane(false);

	private boolean dead;

	private boolean paused;

	SimulatedRuntime(VirtualScheduler scheduler, Network network, String nodeId, double rate, long origin) {
		this.scheduler = scheduler;
		this.network = network;
		this.nodeId = nodeId;
		this.rate = rate;
		this.origin = origin;
	}

	/** How fast this node's clock runs against the server's. */
	double rate() {
		return this.rate;
	}

	/** This node's monotonic clock: its own origin, its own rate. */
	MonotonicClock clock() {
		return () -> this.origin + (long) (this.scheduler.now() * this.rate);
	}

	private long toVirtual(long nodeNanos) {
		return (long) Math.ceil(Math.max(0, nodeNanos) / this.rate);
	}

	@Override
	public boolean isDead() {
		return this.dead;
	}

	@Override
	public boolean isPaused() {
		return this.paused;
	}

	@Override
	public void defer(VirtualScheduler.Event event) {
		this.deferred.add(event);
	}

	void pause() {
		this.paused = true;
	}

	void resume() {
		if (this.paused) {
			this.paused = false;
			this.scheduler.resume(this.deferred);
			this.deferred.clear();
		}
	}

	@Override
	public Lane loop() {
		return this.loop;
	}

	@Override
	public Lane watchdog() {
		return this.watchdog;
	}

	@Override
	public Lane reactions() {
		return this.reactions;
	}

	@Override
	public Lane application() {
		return this.application;
	}

	@Override
	public <T> void call(Supplier<T> operation, BiConsumer<T, RuntimeException> reply) {
		long timeout = this.network.operationTimeoutNanos;
		if (!this.network.reaches(this.nodeId)) {
			boolean refused = this.network.random().nextBoolean();
			this.loop.at(refused ? Network.MILLI : timeout,
					() -> reply.accept(null, new StoreException("simulated: store unreachable", null)));
			return;
		}
		// in a step-down, the driver waits for the new primary before the call goes out,
		// or gives up at its timeout
		long selection = this.network.waitForPrimary(this.scheduler.now());
		if (selection >= timeout) {
			this.loop.at(timeout, () -> reply.accept(null, new StoreException("simulated: no primary", null)));
			return;
		}
		long there = selection + this.network.latency();
		long back = this.network.latency();
		boolean requestLost = this.network.losesRequest();
		boolean replyLost = this.network.losesReply();
		boolean answered = !requestLost && !replyLost && there + back <= timeout;
		if (!answered) {
			this.network.timedOut(this.nodeId, this.scheduler.now());
			// the client gives up; the request may still apply, even after a later one of
			// the same client
			this.loop.at(timeout, () -> reply.accept(null, new StoreException("simulated: timed out", null)));
		}
		if (requestLost) {
			return;
		}
		this.scheduler.after(there, null, () -> {
			if (this.network.storeDown) {
				if (answered) {
					this.loop.at(timeout - there,
							() -> reply.accept(null, new StoreException("simulated: lost", null)));
				}
				return;
			}
			T result = null;
			RuntimeException failure = null;
			// a step-down fails what nodes send, not the checker's own reads
			this.network.nodeCall = true;
			try {
				result = operation.get();
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
			finally {
				this.network.nodeCall = false;
			}
			if (answered) {
				T r = result;
				RuntimeException f = failure;
				this.loop.at(back, () -> reply.accept(r, f));
			}
		});
	}

	@Override
	public void shutdown() {
		this.loop.close(true);
		this.watchdog.close(true);
		this.reactions.close(false);
		this.application.close(false);
	}

	@Override
	public void awaitEvents(Duration timeout) {
		// nothing to wait for: the scheduler delivers what the event lanes were given
	}

	@Override
	public void halt() {
		this.dead = true;
	}

	/** A lane: its tasks are scheduler events owned by this runtime. */
	private final class SimLane implements Lane {

		private final boolean dropsPendingOnClose;

		private boolean closed;

		private boolean dropped;

		/**
		 * Whether one of this lane's tasks runs now (the scheduler runs one event at a
		 * time).
		 */
		private boolean running;

		SimLane(boolean dropsPendingOnClose) {
			this.dropsPendingOnClose = dropsPendingOnClose;
		}

		void close(boolean dropPending) {
			this.closed = true;
			this.dropped = dropPending && this.dropsPendingOnClose;
		}

		/** Schedules in virtual time, for the runtime's own deliveries. */
		void at(long virtualDelay, Runnable task) {
			if (!this.closed) {
				SimulatedRuntime.this.scheduler.after(virtualDelay, SimulatedRuntime.this, guarded(task));
			}
		}

		private Runnable guarded(Runnable task) {
			return () -> {
				if (!this.dropped) {
					this.running = true;
					try {
						task.run();
					}
					finally {
						this.running = false;
					}
				}
			};
		}

		@Override
		public boolean isCurrent() {
			return this.running;
		}

		@Override
		public boolean execute(Runnable task) {
			if (this.closed || SimulatedRuntime.this.dead) {
				return false;
			}
			SimulatedRuntime.this.scheduler.after(0, SimulatedRuntime.this, guarded(task));
			return true;
		}

		@Override
		public @Nullable Timer schedule(Runnable task, long delayNanos) {
			if (this.closed || SimulatedRuntime.this.dead) {
				return null;
			}
			VirtualScheduler.Event event = SimulatedRuntime.this.scheduler.after(toVirtual(delayNanos),
					SimulatedRuntime.this, guarded(task));
			return event::cancel;
		}

	}

}
