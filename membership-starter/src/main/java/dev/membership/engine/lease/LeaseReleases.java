package dev.membership.engine.lease;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.OutgoingNotices;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.history.RunHistory;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.spi.FireMark;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.StoreException;

/**
 * The release of a lease this node no longer leads under, and the goodbye of a graceful
 * stop, as loop jobs.
 */
public final class LeaseReleases {

	private static final Logger log = LoggerFactory.getLogger(LeaseReleases.class);

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ThisNode self;

	private final Heartbeats heartbeats;

	private final Lifecycle lifecycle;

	private final OutgoingNotices letGo;

	private final RunHistory history;

	/**
	 * The restart grace is on: a graceful stop keeps the node's document instead of
	 * removing it.
	 */
	private final boolean keepsPlace;

	/**
	 * The fires of the groups' scheduled jobs, which their releases carry to the next
	 * term.
	 */
	private final LeaseMarks fires;

	public LeaseReleases(MembershipStore store, NodeLoop loop, ThisNode self, Heartbeats heartbeats,
			Lifecycle lifecycle, OutgoingNotices letGo, RunHistory history, boolean keepsPlace, LeaseMarks fires) {
		this.keepsPlace = keepsPlace;
		this.fires = fires;
		this.letGo = letGo;
		this.history = history;
		this.store = store;
		this.loop = loop;
		this.self = self;
		this.heartbeats = heartbeats;
		this.lifecycle = lifecycle;
	}

	/**
	 * Lets go of the lease of {@code unit} held with {@code epoch} (no belief in it any
	 * more): releases it, then says so, naming {@code successor} (the node a move hands
	 * it to) when not null. The notice comes after the release, never before: the
	 * successor takes a lease the store shows free, never one a notice alone says was let
	 * go (a forged or mistaken notice must not make a second leader), and finds the fires
	 * the release carries. Heartbeats before the release: the released lease no longer
	 * keeps this node live, and the keeper must not take it for gone meanwhile.
	 */
	public LoopJob release(GroupElection unit, long epoch, @Nullable String successor) {
		String group = unit.name();
		LoopJob job = new LoopJob("release of group " + group,
				(ex) -> log.warn("Membership release of group {} failed: {}", group, ex.getMessage()));
		job.then((j) -> {
			if (this.lifecycle.ticks()) {
				this.heartbeats.beat(j, (ex) -> true); // the release matters more
			}
			else {
				j.next();
			}
		});
		// not released: the lease had gone (a successor took it over already, or it
		// expired): nothing left to do
		boolean[] landed = new boolean[1];
		job.then((j) -> {
			List<FireMark> marks = this.fires.toRelease(group, epoch);
			this.loop.call(j, () -> this.store.release(group, this.self.holder(), epoch, marks),
					(released, sent, received) -> landed[0] = released, (ex) -> false);
		});
		// told only once the release landed: a successor then finds the lease free, with
		// the fires it carries; after a failed one it would try in vain (the lease holds
		// until it expires), and find the last renewal's fires, as after a crash
		return job.onEnd(() -> {
			if (landed[0]) {
				this.letGo.said(Map.of(unit, epoch), (u) -> successor);
			}
		});
	}

	private void releaseAll(LoopJob job, Map<String, Long> epochs, boolean mayReissue, boolean[] landed) {
		if (epochs.isEmpty()) {
			job.next();
			return;
		}
		Map<String, List<FireMark>> marks = new HashMap<>();
		for (String lease : epochs.keySet()) {
			List<FireMark> fires = this.fires.toRelease(lease, epochs.get(lease));
			if (fires != null) {
				marks.put(lease, fires);
			}
		}
		this.loop.call(job, () -> this.store.releaseAll(this.self.holder(), epochs, marks),
				(count, sent, received) -> landed[0] = true, (ex) -> {
					if (mayReissue && StoreException.isRetryable(ex)) {
						job.now((again) -> releaseAll(again, epochs, false, landed));
					}
					else {
						log.warn("Could not release the leases {} on shutdown ({}): they expire by themselves",
								epochs.keySet(), ex.getMessage());
					}
					return true;
				});
	}

	/**
	 * The goodbye of a graceful stop: {@code beforehand} (on the loop, first), then
	 * releases the given leases (epochs by group; let go of already), removes this node's
	 * document (with the restart grace: writes it, last seen now) and writes the runs
	 * that ended since the last tick. {@code tell} says that this node let go of the
	 * leases once their release was written (the successors take leases the store shows
	 * free, never one a notice alone says was let go).
	 */
	public LoopJob leave(Map<GroupElection, Long> released, Runnable beforehand,
			java.util.function.Consumer<Map<GroupElection, Long>> tell) {
		LoopJob job = new LoopJob("leave", (ex) -> {
		});
		job.then((j) -> {
			this.loop.cancelScheduled();
			beforehand.run();
			j.next();
		});
		// every lease in one call, a lease it did not release was no longer held in that
		// term (it expired), so there is nothing left to release. Reissued once when it
		// failed in a way a reissue may get through (a step-down); after anything else (a
		// write-concern error, a timeout) one call per lease would fail the same way: the
		// leases expire. The successors are told only once it landed: after a failed one
		// they would try in vain
		Map<String, Long> epochs = new LinkedHashMap<>();
		released.forEach((unit, epoch) -> epochs.put(unit.name(), epoch));
		boolean[] landed = new boolean[1];
		job.then((j) -> releaseAll(j, epochs, true, landed));
		if (!released.isEmpty()) {
			job.then((j) -> {
				if (landed[0]) {
					tell.accept(released);
				}
				j.next();
			});
		}
		if (this.keepsPlace) {
			// the restart grace: the document stays, last seen now, so that the keeper
			// keeps this node's place
			job.then((j) -> this.heartbeats.beat(j, (ex) -> {
				log.warn("Could not write node document on shutdown: {}", ex.getMessage());
				return true;
			}));
			return job.then((j) -> this.history.flushLast(this.loop, j));
		}
		job.then((j) -> this.loop.call(j, () -> {
			this.store.removeNode(this.self.nodeId(), this.self.incarnation());
			return null;
		}, (nothing, sent, received) -> {
		}, (ex) -> {
			log.warn("Could not remove node document on shutdown: {}", ex.getMessage());
			return true;
		}));
		// last, once the others may take over: the runs that ended in the drain
		return job.then((j) -> this.history.flushLast(this.loop, j));
	}

}
