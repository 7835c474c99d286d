package dev.membership.engine.leaving;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.OutgoingNotices;
import dev.membership.engine.lease.LeaseReleases;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.Lifecycle.Phase;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.term.DrainWait;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRuntime;

/**
 * The node's graceful stop: every led unit drains at once (no new leader-only work, the
 * leases renewed while the rest finishes, at most the drain timeout), then every belief
 * ends, the leases are released, each successor is told, and the node says goodbye.
 * Unlike a unit's {@link UnitHandOver}, the node competes for nothing afterwards, and a
 * partition that waits for this node's restart is left to it.
 */
public final class GracefulStop {

	private static final Logger log = LoggerFactory.getLogger(GracefulStop.class);

	private final String nodeId;

	private final MembershipSettings settings;

	private final NodeRuntime runtime;

	private final NodeLoop loop;

	private final LeaseReleases farewell;

	private final Lifecycle lifecycle;

	private final Supplier<Collection<GroupElection>> groups;

	private final CompletableFuture<Void> stopped;

	/** The node the placement puts a unit on now, as this node last read it. */
	private final Function<Unit, @Nullable String> placedOwner;

	/**
	 * Who should take a unit over when this node leaves, as this node knows the members;
	 * null: anyone.
	 */
	private final Function<Unit, @Nullable String> successorOnLeave;

	private final OutgoingNotices letGo;

	public GracefulStop(MembershipSettings settings, NodeRuntime runtime, NodeLoop loop, LeaseReleases farewell,
			Lifecycle lifecycle, Supplier<Collection<GroupElection>> groups, CompletableFuture<Void> stopped,
			Function<Unit, @Nullable String> placedOwner, Function<Unit, @Nullable String> successorOnLeave,
			OutgoingNotices letGo) {
		this.nodeId = settings.nodeId();
		this.settings = settings;
		this.runtime = runtime;
		this.loop = loop;
		this.farewell = farewell;
		this.lifecycle = lifecycle;
		this.groups = groups;
		this.stopped = stopped;
		this.placedOwner = placedOwner;
		this.successorOnLeave = successorOnLeave;
		this.letGo = letGo;
	}

	/**
	 * Hands every led group over; completes when its leader-only work is done or the
	 * drain timeout passed.
	 */
	CompletableFuture<Void> drain() {
		// every term there is: the lifecycle moved on before this, and the loop begins a
		// term only while it has not (Campaign checks that under the lifecycle's lock),
		// so a term either is here or never begins
		Map<GroupElection, CompletableFuture<Void>> drains = new LinkedHashMap<>();
		for (GroupElection group : this.groups.get()) {
			Term term = group.term();
			if (term != null && term.isValid()) {
				drains.put(group, term.handOver());
				group.events().handingOver(term.epoch(), RevocationReason.SHUTDOWN);
			}
		}
		this.loop.submit(LoopJob.of("graceful stop", () -> this.groups.get().forEach(GroupElection::stopping)));
		CompletableFuture<Void> all = CompletableFuture.allOf(drains.values().toArray(CompletableFuture[]::new));
		return DrainWait.orTimeout(this.runtime, this.settings, all, () -> drains
			.forEach((group, drained) -> DrainWait.warnTimedOut(this.settings, group.name(), drained, group.term())));
	}

	/** Runs {@code task} on the watchdog, or here once the watchdog has stopped. */
	private void onWatchdog(Runnable task) {
		if (!this.runtime.watchdog().execute(task)) {
			task.run(); // halted: the task finds nothing left to do
		}
	}

	/**
	 * A graceful stop, once: the drain, then {@link #leave} on this thread when
	 * {@code callerWaits} (no hop between the drain's end and the release), else on the
	 * watchdog (not on whichever thread ended the drain: a job's, or one ending a term).
	 * A node that never started just stops.
	 */
	public void stop(Duration timeout, boolean callerWaits) {
		if (this.lifecycle.move(Phase.NEW, Phase.STOPPED)) {
			this.runtime.shutdown();
			this.stopped.complete(null);
		}
		// the loop keeps renewing, competes no more
		else if (this.lifecycle.move(Phase.RUNNING, Phase.DRAINING)) {
			CompletableFuture<Void> drained = drain();
			if (callerWaits) {
				leaveHere(drained, timeout);
			}
			else {
				drained.whenCompleteAsync((ok, ex) -> leave(timeout), this::onWatchdog);
			}
		}
	}

	/**
	 * For a caller that waits for the stop anyway: waits here for {@code drained} (which
	 * ends by the drain timeout at the latest), then leaves from this thread.
	 */
	private void leaveHere(CompletableFuture<Void> drained, Duration timeout) {
		try {
			drained.get(this.settings.drainTimeout().plusSeconds(1).toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// the drain's own timeout said what still ran
		}
		leave(timeout);
	}

	/**
	 * After the drain: ends every belief at once (from here, since the loop may be
	 * waiting on a call), releases the leases and says goodbye on the loop, within
	 * {@code timeout}, and once the releases were written says that it let go of each
	 * lease, to its successor, on the reactions lane.
	 */
	void leave(Duration timeout) {
		if (!this.lifecycle.move(Phase.DRAINING, Phase.STOPPING)) {
			return; // halted meanwhile
		}
		CompletableFuture<Void> left = new CompletableFuture<>();
		NodeRuntime.Timer timer = null;
		try {
			Map<GroupElection, Long> released = new LinkedHashMap<>();
			List<GroupElection> all = new ArrayList<>(this.groups.get());
			for (GroupElection group : all) {
				Term term = group.term();
				if (term != null && term.isValid() && group.end(term, RevocationReason.SHUTDOWN)) {
					released.put(group, term.epoch());
				}
			}
			timer = this.runtime.watchdog()
				.schedule(() -> left.completeExceptionally(new TimeoutException("timed out after " + timeout)),
						timeout.toNanos());
			// said once the release was written: the successors take leases the store
			// shows free, and find the fires the releases carry
			LoopJob goodbye = this.farewell.leave(released, () -> all.forEach(GroupElection::left),
					(told) -> this.letGo.said(told, this.successorOnLeave, this::waitsForRestart));
			if (!this.loop.submit(goodbye.onEnd(() -> left.complete(null)))) {
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
				// whatever happened, a waiting stop() returns
				this.stopped.complete(null);
			}
		});
	}

	/**
	 * With a restart grace, a partition placed on this node waits for it to come back:
	 * nobody is told to take it.
	 */
	private boolean waitsForRestart(Unit unit) {
		return !this.settings.restartGrace().isZero() && unit.isPartition()
				&& this.nodeId.equals(this.placedOwner.apply(unit));
	}

}
