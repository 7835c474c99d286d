package dev.membership.engine;

import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.clock.ClockSamples;
import dev.membership.engine.election.GroupElection;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.history.RunHistory;
import dev.membership.engine.lease.Campaign;
import dev.membership.engine.lease.Renewals;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.roster.RosterFollower;
import dev.membership.engine.roster.RosterKeeper;
import dev.membership.spi.MembershipStore;

/**
 * What the loop does every renewal interval, as one job of store calls: sample the
 * database's clock when no reply brought a sample lately, prepare the store once, renew
 * what the node holds ({@link Renewals}), heartbeat unless the group leases keep this
 * node live, then either keep the roster (as the leader of the default group) or follow
 * it (the read confirms the partitions' renewal), hand over what the placement puts on
 * another node and what a hung run holds, compete where it may, remove long-dead nodes
 * when the keeper saw some, and write the runs that began or ended since the last tick to
 * the run history. The store stamps every heartbeat and renewal with its clock, so a
 * steady tick is two store calls, three with partitioned groups (their renewal in one
 * call with the groups', the heartbeat or the keeper's read of the node documents, and
 * the read), one more in an interval in which a run began or ended, when the node keeps a
 * run history, and one more for a leader's document when it is due
 * ({@link #heartbeatUnlessLeading}).
 */
final class Tick {

	private static final Logger log = LoggerFactory.getLogger(Tick.class);

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final ThisNode self;

	private final Campaign campaign;

	private final Heartbeats heartbeats;

	private final RosterFollower follower;

	private final RosterKeeper keeper;

	private final Lifecycle lifecycle;

	private final Renewals renewals;

	/**
	 * Hands over what this node should no longer hold: what the placement puts elsewhere,
	 * units of hung runs.
	 */
	private final Runnable moves;

	/** This node's part of the run history, written at the end of a tick. */
	private final RunHistory history;

	private boolean storeInitialized;

	/** A leader wrote its document instead of reading this tick. */
	private boolean readSkipped;

	Tick(MembershipStore store, NodeLoop loop, ClockSamples samples, ThisNode self, Campaign campaign,
			Heartbeats heartbeats, RosterFollower follower, RosterKeeper keeper, Lifecycle lifecycle, Renewals renewals,
			Runnable moves, RunHistory history) {
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.self = self;
		this.campaign = campaign;
		this.heartbeats = heartbeats;
		this.follower = follower;
		this.keeper = keeper;
		this.lifecycle = lifecycle;
		this.renewals = renewals;
		this.moves = moves;
		this.history = history;
	}

	/** One tick, failing with {@code onFailure} at the first store call that fails. */
	LoopJob job(Consumer<RuntimeException> onFailure) {
		LoopJob job = new LoopJob("tick", onFailure);
		job.then((j) -> {
			if (this.lifecycle.ticks()) {
				j.next();
			}
			else {
				j.finish(); // stopping
			}
		});
		job.then(this::syncClockIfDue).then(this::initializeStoreOnce);
		job.then(this.renewals::renew);
		job.then(this::heartbeatUnlessLeading).then(this::readMembership);
		job.then((j) -> {
			this.moves.run();
			j.next();
		});
		for (GroupElection group : this.self.groups()) {
			job.then((j) -> this.campaign.compete(j, group, false));
		}
		job.then(this.keeper::removeDeadNodesWhenSeen);
		// last, and the loop does not wait for the write
		return job.then(this.history::flush);
	}

	/**
	 * Asks the store for its time only when no heartbeat or renewal brought a sample
	 * lately (at start).
	 */
	private void syncClockIfDue(LoopJob job) {
		if (!this.samples.due(this.loop.clock().nanoTime())) {
			job.next();
			return;
		}
		// empty behind a router whose clock is not the one that stamps writes: the
		// heartbeat's stamp comes next
		this.loop.call(job, this.store::serverTime,
				(serverTime, sent, received) -> this.samples.take(sent, received, serverTime.orElse(null)),
				(ex) -> false);
	}

	private void initializeStoreOnce(LoopJob job) {
		if (this.storeInitialized) {
			job.next();
			return;
		}
		this.loop.call(job, () -> {
			this.store.initialize();
			return null;
		}, (nothing, sent, received) -> this.storeInitialized = true, (ex) -> {
			if (ex instanceof IllegalStateException) {
				// set up so that no lease can be kept safe (sharded collections): no tick
				// goes further
				return false;
			}
			// indexes are housekeeping only; safety never depends on them
			log.warn("Could not prepare the membership collections (will go on without): {}", ex.getMessage());
			this.storeInitialized = true;
			return true;
		});
	}

	/**
	 * A node that holds a lease is kept live by its renewals; the others heartbeat. A
	 * leader still writes its document when it is due ({@link Heartbeats#documentDue()}),
	 * so that it is never old enough to be removed (by the keeper, which is no exception,
	 * or by the TTL index); that tick a leader other than the keeper skips its read.
	 */
	private void heartbeatUnlessLeading(LoopJob job) {
		this.readSkipped = false;
		if (!this.self.leadsAny()) {
			this.heartbeats.beat(job, (ex) -> false);
			return;
		}
		if (!this.heartbeats.documentDue()) {
			job.next();
			return;
		}
		// the keeper reads the node documents all the same; another leader skips its
		// read, but when renewals wait for the read's confirmation this tick (then the
		// document costs a call more)
		this.readSkipped = this.self.keeperGroup() == null && this.renewals.toConfirm().isEmpty();
		this.heartbeats.beat(job, (ex) -> {
			// the renewals keep it live meanwhile: read, and try again next tick
			this.readSkipped = false;
			return true;
		});
	}

	/**
	 * The keeper of the roster reads the node documents; every other node reads the
	 * leases and a changed roster.
	 */
	private void readMembership(LoopJob job) {
		if (this.readSkipped) {
			this.readSkipped = false;
			job.next();
			return;
		}
		GroupElection keeperOf = this.self.keeperGroup();
		if (keeperOf != null) {
			this.keeper.keep(job, keeperOf);
		}
		else {
			this.follower.follow(job);
		}
	}

}
