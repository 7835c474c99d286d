package dev.membership;

import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.liveness.NodeReadyEvent;
import dev.membership.store.Holder;
import dev.membership.store.LeaderClaim;
import dev.membership.store.MembershipStore;
import dev.membership.store.NodeRecord;

/**
 * What the loop does, as jobs of store calls: a tick (clock sample when due, renew the held leases, heartbeat, list
 * the members, compete where no leader is known, now and then remove long-dead nodes), and the release of a lease and
 * the goodbye of a graceful leave. Every decision takes the store's answers and the times of the call as inputs.
 */
final class ElectionRound {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private static final int CLEANUP_EVERY_TICKS = 10;

	private final MembershipSettings settings;

	private final MembershipStore store;

	private final NodeLoop loop;

	private final Campaign campaign;

	private final MemberRoster roster;

	private final EventDispatch events;

	private final ElectionMetrics metrics;

	private final Supplier<Collection<GroupElection>> groups;

	private final Supplier<Holder> holder;

	private final Lifecycle lifecycle;

	private final String incarnation;

	private final String nodeId;

	private volatile boolean ready;

	private volatile long lastHeartbeatNanos;

	private volatile boolean heartbeatSucceeded;

	private volatile boolean duplicateNodeId;

	// confined to the loop
	private Instant startedAt;

	private boolean storeInitialized;

	private long lastClockSyncNanos;

	private long ticks;

	ElectionRound(MembershipSettings settings, MembershipStore store, NodeLoop loop, Campaign campaign,
			MemberRoster roster, EventDispatch events, ElectionMetrics metrics,
			Supplier<Collection<GroupElection>> groups, Supplier<Holder> holder, Lifecycle lifecycle,
			String incarnation) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.campaign = campaign;
		this.roster = roster;
		this.events = events;
		this.metrics = metrics;
		this.groups = groups;
		this.holder = holder;
		this.lifecycle = lifecycle;
		this.incarnation = incarnation;
		this.nodeId = settings.nodeId();
	}

	boolean ready() {
		return this.ready;
	}

	/** Local monotonic time of the last successful heartbeat, or null before the first. */
	Long lastHeartbeatNanos() {
		return this.heartbeatSucceeded ? this.lastHeartbeatNanos : null;
	}

	boolean duplicateNodeId() {
		return this.duplicateNodeId;
	}

	/** One tick, failing with {@code onFailure} at the first store call that fails. */
	LoopJob tick(Consumer<RuntimeException> onFailure) {
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
		for (GroupElection group : this.groups.get()) {
			job.then((j) -> renew(j, group));
		}
		job.then(this::heartbeat).then(this::listMembers);
		for (GroupElection group : this.groups.get()) {
			job.then((j) -> this.campaign.compete(j, group, false));
		}
		return job.then(this::removeDeadNodesWhenDue);
	}

	private void syncClockIfDue(LoopJob job) {
		long now = this.loop.clock().nanoTime();
		if (this.loop.serverClock().isSynchronized()
				&& now - this.lastClockSyncNanos < this.settings.clockSyncInterval().toNanos()) {
			job.next();
			return;
		}
		this.loop.call(job, this.store::serverTime, (serverTime, sent, received) -> {
			this.loop.serverClock().offer(sent, received, serverTime);
			this.lastClockSyncNanos = received;
			if (this.startedAt == null) {
				this.startedAt = this.loop.serverClock().estimateAt(received);
			}
		}, (ex) -> false);
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
			// indexes are housekeeping only; safety never depends on them
			log.warn("Could not prepare the membership collections (will go on without): {}", ex.getMessage());
			this.storeInitialized = true;
			return true;
		});
	}

	private void renew(LoopJob job, GroupElection group) {
		LeadershipTerm term = group.term();
		if (term == null || !term.isValid()) {
			job.next();
			return;
		}
		long sent = this.loop.clock().nanoTime();
		Instant expiresAt = this.loop.serverClock().upperBoundAt(sent).plus(this.settings.leaseDuration());
		this.loop.call(job, () -> this.store.renew(group.name(), this.holder.get(), term.epoch(), expiresAt),
				(renewed, sentNanos, received) -> {
					if (renewed) {
						this.metrics.renewal(group.name(), ElectionMetrics.RenewalOutcome.RENEWED);
						group.extend(term, this.campaign.deadlineFor(sent), expiresAt);
					}
					else {
						this.metrics.renewal(group.name(), ElectionMetrics.RenewalOutcome.LOST);
						group.revoke(term, RevocationReason.LEASE_LOST);
					}
				}, (ex) -> {
					this.metrics.renewal(group.name(), ElectionMetrics.RenewalOutcome.ERROR);
					return false;
				});
	}

	/** Writes this node's document with its claims; withdraws a claim at once after a resign. */
	void heartbeat(LoopJob job) {
		heartbeat(job, (ex) -> false);
	}

	/** The same; {@code recover} says which failures the job survives. */
	void heartbeat(LoopJob job, Predicate<RuntimeException> recover) {
		Map<String, LeaderClaim> claims = new HashMap<>();
		for (GroupElection group : this.groups.get()) {
			LeaderClaim claim = group.claim();
			if (claim != null) {
				claims.put(group.name(), claim);
			}
		}
		List<String> names = this.groups.get().stream().map(GroupElection::name).toList();
		Holder self = this.holder.get();
		NodeRecord record = new NodeRecord(this.nodeId, this.incarnation, self.address(), this.startedAt, null, names,
				claims);
		this.loop.call(job, () -> this.store.heartbeat(record), (previous, sent, received) -> {
			if (this.heartbeatSucceeded && previous != null && !previous.equals(this.incarnation)) {
				if (!this.duplicateNodeId) {
					log.error("Node id '{}' is used by another process (incarnation {}) as well as by this one ({}). "
							+ "Only one of them can lead; give every instance its own membership.node-id.",
							this.nodeId, previous, this.incarnation);
				}
				this.duplicateNodeId = true;
			}
			this.lastHeartbeatNanos = sent;
			this.heartbeatSucceeded = true;
		}, recover);
	}

	private void listMembers(LoopJob job) {
		this.loop.call(job, this.store::findNodes, (records, sent, received) -> {
			Instant now = this.loop.serverClock().estimateAt(received);
			Instant certainlyPassed = this.loop.serverClock().lowerBoundAt(received);
			this.roster.update(records, now);
			for (GroupElection group : this.groups.get()) {
				if (!group.isLeader()) { // this node knows best
					group.leader().updateFromListing(records, certainlyPassed);
				}
			}
			if (!this.ready) {
				this.ready = true;
				this.events.publish(new NodeReadyEvent(this.nodeId));
			}
		}, (ex) -> false);
	}

	private void removeDeadNodesWhenDue(LoopJob job) {
		if (++this.ticks % CLEANUP_EVERY_TICKS != 0 || this.groups.get().stream().noneMatch(GroupElection::isLeader)) {
			job.next();
			return;
		}
		Instant cutoff = this.loop.serverClock()
			.lowerBoundAt(this.loop.clock().nanoTime())
			.minus(this.settings.deadNodeRetention());
		this.loop.call(job, () -> this.store.removeNodesNotSeenSince(cutoff), (removed, sent, received) -> {
			if (removed > 0) {
				log.info("Removed {} node document(s) not seen since {}", removed, cutoff);
			}
		}, (ex) -> false);
	}

	/** Releases the lease of a group this node resigned, then withdraws its claim. */
	LoopJob release(String group, long epoch) {
		LoopJob job = new LoopJob("release of group " + group,
				(ex) -> log.warn("Membership release of group {} failed: {}", group, ex.getMessage()));
		job.then((j) -> this.loop.call(j, () -> this.store.release(group, this.holder.get(), epoch),
				(released, sent, received) -> {
					if (released) {
						this.events.publish(new LeaseReleasedEvent(this.nodeId, group, epoch));
					}
				}, (ex) -> false));
		// withdraws the claim at once; never after the goodbye removed the node's document
		return job.then((j) -> {
			if (this.lifecycle.ticks()) {
				heartbeat(j);
			}
			else {
				j.next();
			}
		});
	}

	/** The goodbye of a graceful stop: releases the given leases (epochs by group) and removes the node's document. */
	LoopJob leave(Map<String, Long> released) {
		LoopJob job = new LoopJob("leave", (ex) -> {
		});
		job.then((j) -> {
			this.loop.cancelScheduled();
			j.next();
		});
		released.forEach((group, epoch) -> job.then((j) -> this.loop.call(j,
				() -> this.store.release(group, this.holder.get(), epoch), (done, sent, received) -> {
					if (done) {
						this.events.publish(new LeaseReleasedEvent(this.nodeId, group, epoch));
					}
				}, (ex) -> {
					log.warn("Could not release lease of group {} on shutdown: {}", group, ex.getMessage());
					return true;
				})));
		return job.then((j) -> this.loop.call(j, () -> {
			this.store.removeNode(this.nodeId, this.incarnation);
			return null;
		}, (nothing, sent, received) -> {
		}, (ex) -> {
			log.warn("Could not remove node document on shutdown: {}", ex.getMessage());
			return true;
		}));
	}

	/** Advisory news that the lease of {@code group} held with {@code releasedEpoch} was just released. */
	LoopJob nudge(GroupElection group, long releasedEpoch) {
		LoopJob job = new LoopJob("attempt on group " + group.name(),
				(ex) -> log.warn("Membership attempt on group {} failed: {}", group.name(), ex.getMessage()));
		return job.then((j) -> {
			LeaderInfo known = group.leader().known();
			if (group.isLeader() || (known != null && known.epoch() > releasedEpoch)) {
				j.next(); // late: a newer leader is known already
				return;
			}
			this.campaign.compete(j, group, true);
		});
	}

	/** Advisory news of another node's election: remembered when it is news. Never makes this node leader. */
	LoopJob observe(GroupElection group, LeaderInfo leader) {
		LoopJob job = new LoopJob("leader news for group " + group.name(),
				(ex) -> log.warn("Membership leader news for group {} failed: {}", group.name(), ex.getMessage()));
		return job.then((j) -> {
			if (group.leader().isNews(leader) && !group.isLeader()) {
				// learned now, so any heartbeat of that node stamped after now (upper bound) came after it acquired
				group.leader().learn(leader, this.loop.serverClock().isSynchronized()
						? this.loop.serverClock().upperBoundAt(this.loop.clock().nanoTime()) : null);
			}
			j.next();
		});
	}

}
