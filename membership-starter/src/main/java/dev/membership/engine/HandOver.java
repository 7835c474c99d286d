package dev.membership.engine;

import dev.membership.spi.NodeRuntime;

import dev.membership.Membership;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.Lifecycle.Phase;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.MonotonicClock;

/**
 * Graceful hand-overs, for a resign and for a stop: no new leader-only work starts, work that asked to be interrupted
 * is, and the lease stays renewed while the rest finishes (at most the drain timeout); only then does the belief end
 * and the lease get released, so that the next leader never starts while this one's work still runs.
 */
final class HandOver {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final String nodeId;

	private final MembershipSettings settings;

	private final MonotonicClock clock;

	private final NodeRuntime runtime;

	private final NodeLoop loop;

	private final ElectionRound round;

	private final Lifecycle lifecycle;

	private final Supplier<Collection<GroupElection>> groups;

	private final CompletableFuture<Void> stopped;

	HandOver(MembershipSettings settings, MonotonicClock clock, NodeRuntime runtime, NodeLoop loop, ElectionRound round,
			Lifecycle lifecycle, Supplier<Collection<GroupElection>> groups, CompletableFuture<Void> stopped) {
		this.nodeId = settings.nodeId();
		this.settings = settings;
		this.clock = clock;
		this.runtime = runtime;
		this.loop = loop;
		this.round = round;
		this.lifecycle = lifecycle;
		this.groups = groups;
		this.stopped = stopped;
	}

	/** Resigns {@code group}: drains, then ends the belief, releases the lease and stays out of the race a while. */
	void resign(GroupElection group) {
		// hold-off first: the loop must not take the lease straight back through the "already mine" clause
		holdOff(group);
		LeadershipTerm.Control control = group.control();
		if (control == null) {
			return;
		}
		LeadershipTerm term = control.term();
		AtomicBoolean handedOver = new AtomicBoolean();
		Runnable handOver = () -> {
			if (handedOver.compareAndSet(false, true)) {
				holdOff(group);
				if (group.revoke(term, RevocationReason.RESIGNED)) {
					this.loop.submit(this.round.release(group.name(), term.epoch()));
				}
			}
		};
		CompletableFuture<Void> drained = control.handOver();
		if (drained.isDone()) {
			handOver.run(); // nothing running: ends the belief before resign() returns
			return;
		}
		NodeRuntime.Timer timeout = this.runtime.watchdog().schedule(() -> {
			if (!handedOver.get()) {
				warnDrainTimedOut(group.name(), drained, term);
				handOver.run();
			}
		}, this.settings.drainTimeout().toNanos());
		// on the watchdog, not on the thread of the work that finished last
		drained.thenRunAsync(() -> {
			if (timeout != null) {
				timeout.cancel();
			}
			handOver.run();
		}, this::onWatchdog);
	}

	/** Runs {@code task} on the watchdog, or here once the watchdog has stopped. */
	void onWatchdog(Runnable task) {
		if (!this.runtime.watchdog().execute(task)) {
			task.run(); // halted: the task finds nothing left to do
		}
	}

	private void holdOff(GroupElection group) {
		group.holdOff(this.clock.nanoTime() + this.settings.renewalInterval().multipliedBy(2).toNanos());
	}

	/** Hands every led group over; completes when its leader-only work is done or the drain timeout passed. */
	CompletableFuture<Void> drain(Iterable<GroupElection> led) {
		Map<GroupElection, CompletableFuture<Void>> drains = new LinkedHashMap<>();
		for (GroupElection group : led) {
			LeadershipTerm.Control control = group.control();
			if (control != null) {
				drains.put(group, control.handOver());
			}
		}
		CompletableFuture<Void> all = CompletableFuture.allOf(drains.values().toArray(CompletableFuture[]::new));
		if (all.isDone()) {
			return all;
		}
		CompletableFuture<Void> drainedOrTimedOut = new CompletableFuture<>();
		NodeRuntime.Timer timeout = this.runtime.watchdog().schedule(() -> {
			drains.forEach((group, drained) -> warnDrainTimedOut(group.name(), drained, group.term()));
			drainedOrTimedOut.complete(null);
		}, this.settings.drainTimeout().toNanos());
		all.whenComplete((ok, ex) -> {
			if (timeout != null) {
				timeout.cancel();
			}
			drainedOrTimedOut.complete(null);
		});
		if (timeout == null) {
			drainedOrTimedOut.complete(null); // halted meanwhile
		}
		return drainedOrTimedOut;
	}

	private void warnDrainTimedOut(String group, CompletableFuture<Void> drained, LeadershipTerm term) {
		if (term != null && !drained.isDone()) {
			log.warn("Node {} hands group '{}' over after waiting {} for leader-only work that is still running: {}. "
					+ "The next leader may start while it runs; fence its writes with the epoch ({}), or raise "
					+ "membership.shutdown.drain-timeout", this.nodeId, group, this.settings.drainTimeout(),
					term.runningWork(), term.epoch());
		}
	}

	/** After the drain: ends every belief, then releases the leases and says goodbye on the loop, within timeout. */
	void leave(Duration timeout) {
		if (!this.lifecycle.move(Phase.DRAINING, Phase.STOPPING)) {
			return; // halted meanwhile
		}
		CompletableFuture<Void> left = new CompletableFuture<>();
		NodeRuntime.Timer timer = null;
		try {
			Map<String, Long> released = new LinkedHashMap<>();
			for (GroupElection group : this.groups.get()) {
				LeadershipTerm term = group.term();
				if (term != null && group.revoke(term, RevocationReason.SHUTDOWN)) {
					released.put(group.name(), term.epoch());
				}
			}
			timer = this.runtime.watchdog()
				.schedule(() -> left.completeExceptionally(new TimeoutException("timed out after " + timeout)),
						timeout.toNanos());
			if (!this.loop.submit(this.round.leave(released).onEnd(() -> left.complete(null)))) {
				left.completeExceptionally(new IllegalStateException("loop stopped"));
			}
		}
		catch (RuntimeException ex) {
			left.completeExceptionally(ex);
		}
		NodeRuntime.Timer leaveTimer = timer;
		left.whenComplete((ok, ex) -> {
			try {
				if (leaveTimer != null) {
					leaveTimer.cancel();
				}
				if (ex != null) {
					log.warn("Membership node {} could not release its leases in time ({}); followers take over when "
							+ "the leases expire", this.nodeId, ex.toString());
				}
				this.runtime.shutdown();
				this.lifecycle.move(Phase.STOPPING, Phase.STOPPED);
				log.info("Membership node {} stopped", this.nodeId);
			}
			finally {
				this.stopped.complete(null); // whatever happened, a waiting stop() returns
			}
		});
	}

}
