package dev.membership.engine.loop;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.clock.ServerClock;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.StoreException;

/**
 * The driver: runs the loop's jobs one at a time, makes their store calls through the
 * runtime with the send and receive times the protocol needs, and schedules the ticks,
 * with a back-off while the store cannot be reached. What a tick does is {@code Tick}'s
 * business; this class knows nothing of leases.
 */
public final class NodeLoop {

	private static final Logger log = LoggerFactory.getLogger(NodeLoop.class);

	private final String nodeId;

	private final MembershipSettings settings;

	private final MonotonicClock clock;

	private final ServerClock serverClock;

	private final NodeRuntime runtime;

	private final NodeRuntime.Lane lane;

	private final Lifecycle lifecycle;

	/**
	 * Whether this node leads a unit now: a leader keeps trying to renew before its
	 * deadline.
	 */
	private final BooleanSupplier leading;

	/** Calls off every unit's scheduled attempt for a lease. */
	private final Runnable cancelAttempts;

	// confined to the loop
	private final ArrayDeque<LoopJob> queue = new ArrayDeque<>();

	private boolean busy;

	private NodeRuntime.Timer nextTick;

	private volatile int consecutiveFailures;

	private volatile String lastError;

	public NodeLoop(String nodeId, MembershipSettings settings, MonotonicClock clock, ServerClock serverClock,
			NodeRuntime runtime, Lifecycle lifecycle, BooleanSupplier leading, Runnable cancelAttempts) {
		this.nodeId = nodeId;
		this.settings = settings;
		this.clock = clock;
		this.serverClock = serverClock;
		this.runtime = runtime;
		this.lane = runtime.loop();
		this.lifecycle = lifecycle;
		this.leading = leading;
		this.cancelAttempts = cancelAttempts;
	}

	public MonotonicClock clock() {
		return this.clock;
	}

	public ServerClock serverClock() {
		return this.serverClock;
	}

	public int consecutiveFailures() {
		return this.consecutiveFailures;
	}

	public String lastError() {
		return this.lastError;
	}

	/**
	 * A reply to a store call, with the local monotonic times the request was sent and
	 * the reply received.
	 */
	@FunctionalInterface
	public interface Reply<T> {

		void accept(T result, long sentNanos, long receivedNanos);

	}

	/**
	 * Makes a store call for {@code job} and goes on with its next step once
	 * {@code onReply} has taken the result. A failure goes to {@code recover} first: when
	 * it returns true the job goes on, otherwise the job fails.
	 */
	public <T> void call(LoopJob job, Supplier<T> operation, Reply<T> onReply, Predicate<RuntimeException> recover) {
		long sent = this.clock.nanoTime();
		this.runtime.call(operation, (result, failure) -> {
			if (failure != null) {
				if (recover.test(failure)) {
					job.next();
				}
				else {
					job.fail(failure);
				}
				return;
			}
			try {
				onReply.accept(result, sent, this.clock.nanoTime());
			}
			catch (RuntimeException ex) {
				job.fail(ex);
				return;
			}
			catch (Error err) {
				job.failAndRethrow(err);
			}
			job.next();
		});
	}

	/**
	 * Runs {@code job} after the jobs already waiting; from any thread. False when the
	 * loop was shut down.
	 */
	public boolean submit(LoopJob job) {
		return this.lane.execute(() -> enqueue(job));
	}

	/**
	 * Runs {@code job} once {@code delayNanos} have passed, after the jobs waiting then.
	 */
	public NodeRuntime.Timer schedule(Supplier<LoopJob> job, long delayNanos) {
		return this.lane.schedule(() -> enqueue(job.get()), delayNanos);
	}

	private void enqueue(LoopJob job) {
		this.queue.addLast(job);
		runNext();
	}

	private void runNext() {
		if (this.busy) {
			return;
		}
		LoopJob job = this.queue.pollFirst();
		if (job == null) {
			return;
		}
		this.busy = true;
		job.onEnd(() -> this.lane.execute(() -> {
			this.busy = false;
			runNext();
		}));
		job.start();
	}

	/**
	 * Starts ticking: the first tick now, then one every renewal interval after the
	 * previous one ended, or later while the store cannot be reached. {@code round} makes
	 * a tick's job with the given failure handler.
	 */
	public void startTicking(Function<Consumer<RuntimeException>, LoopJob> round) {
		submit(tick(round));
	}

	private LoopJob tick(Function<Consumer<RuntimeException>, LoopJob> round) {
		if (!this.lifecycle.ticks()) {
			return new LoopJob("stopped", (ex) -> {
			});
		}
		Duration[] delay = { this.settings.renewalInterval() };
		LoopJob job = round.apply((ex) -> delay[0] = onFailure(ex));
		job.then((j) -> {
			if (this.consecutiveFailures > 0) {
				log.info("Membership node {} reaches the store again (after {} failed attempt(s))", this.nodeId,
						this.consecutiveFailures);
			}
			this.consecutiveFailures = 0;
			this.lastError = null;
			j.next();
		});
		return job.onEnd(() -> {
			if (this.lifecycle.ticks()) {
				this.nextTick = schedule(() -> tick(round), delay[0].toNanos());
			}
		});
	}

	/**
	 * Counts a failed tick and returns how long to wait before the next one: at most one
	 * renewal interval.
	 */
	private Duration onFailure(RuntimeException ex) {
		int failures = ++this.consecutiveFailures;
		// health shows it
		this.lastError = (ex.getMessage() != null) ? ErrorText.clean(ex.getMessage()) : null;
		if (!(ex instanceof StoreException)) {
			// not the store's: a bug, or code the node was given (a placement policy,
			// say), named by its stack trace
			log.error("Unexpected failure in the membership loop of {}", this.nodeId, ex);
		}
		else if (failures == 1) {
			log.warn("Membership node {}: a call of the store failed: {}", this.nodeId, ex.getMessage());
		}
		else {
			log.debug("Membership node {} store failure #{}: {}", this.nodeId, failures, ex.getMessage());
		}
		Duration interval = this.settings.renewalInterval();
		if (this.leading.getAsBoolean()) {
			// a leader keeps trying to renew before its deadline
			return interval.dividedBy(2);
		}
		// no longer back-off: a failing tick costs one call, less than a healthy one, and
		// a node that waited longer would delay the failover after the store comes back
		return interval;
	}

	/**
	 * Calls off the next tick and every scheduled attempt; on the loop, before leaving.
	 */
	public void cancelScheduled() {
		if (this.nextTick != null) {
			this.nextTick.cancel();
		}
		this.cancelAttempts.run();
	}

}
