package dev.membership.engine;

import dev.membership.Membership;

import dev.membership.spi.ElectionMetrics;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.liveness.Member;
import dev.membership.liveness.NodeReadyEvent;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RosterTooLargeException;

/**
 * What the loop does, as jobs of store calls: a tick (renew the held leases, heartbeat unless the leases keep this node
 * live, then either keep the roster, as the leader of the default group, or read the leases and a changed roster,
 * compete where no leader is known, remove long-dead nodes when the keeper saw some), and the release of a lease and
 * the goodbye of a graceful leave. The store stamps every heartbeat and renewal with its clock, and those stamps are
 * the clock samples, so a steady tick is two store calls (the keeper: one more when other groups have leaders). Every
 * decision takes the store's answers and the times of the call as inputs.
 */
final class ElectionRound {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final MembershipSettings settings;

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final Campaign campaign;

	private final MemberRoster roster;

	private final RosterKeeping keeping;

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

	private long rosterWrites;

	/** What this node's document said at its last write, and when (local monotonic time). */
	private NodeRecord lastDocument;

	private long lastDocumentNanos;

	private int takeoversInARow;

	/** A leader wrote its document instead of reading this tick. */
	private boolean readSkipped;

	/**
	 * The keeper's term in which this node last wrote the roster it holds as stored, or 0: then the store may hold
	 * another (a write that failed may have been applied all the same; other keepers wrote while this node did not
	 * read), and the next write goes ahead whether the roster changed or not.
	 */
	private long rosterWrittenInEpoch;

	/** The recent changes of the last roster this node wrote. */
	private List<RosterChange> recentChanges = List.of();

	private boolean deadNodesSeen;

	ElectionRound(MembershipSettings settings, MembershipStore store, NodeLoop loop, ClockSamples samples,
			Campaign campaign, MemberRoster roster, EventDispatch events, ElectionMetrics metrics,
			Supplier<Collection<GroupElection>> groups, Supplier<Holder> holder, Lifecycle lifecycle,
			String incarnation) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.campaign = campaign;
		this.roster = roster;
		this.keeping = new RosterKeeping(settings.livenessWindow());
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

	/** Local monotonic time of the last successful heartbeat or renewal, or null before the first. */
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
		job.then(this::heartbeatUnlessLeading).then(this::readMembership);
		for (GroupElection group : this.groups.get()) {
			job.then((j) -> this.campaign.compete(j, group, false));
		}
		return job.then(this::removeDeadNodesWhenSeen);
	}

	/** Asks the store for its time only when no heartbeat or renewal brought a sample lately (at start). */
	private void syncClockIfDue(LoopJob job) {
		if (!this.samples.due(this.loop.clock().nanoTime())) {
			job.next();
			return;
		}
		this.loop.call(job, this.store::serverTime,
				(serverTime, sent, received) -> sampleClock(sent, received, serverTime), (ex) -> false);
	}

	/**
	 * A time the store stamped between {@code sent} and {@code received}; false when it showed a jump of the
	 * database's clock beyond what the safety margin absorbs (see {@link ClockSamples}).
	 */
	private boolean sampleClock(long sent, long received, Instant serverTime) {
		boolean agrees = this.samples.take(sent, received, serverTime);
		if (this.startedAt == null && this.loop.serverClock().isSynchronized()) {
			this.startedAt = this.loop.serverClock().estimateAt(received);
		}
		return agrees;
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
				(renewedAt, sentNanos, received) -> {
					if (renewedAt.isPresent()) {
						this.metrics.renewal(group.name(), ElectionMetrics.RenewalOutcome.RENEWED);
						this.lastHeartbeatNanos = sentNanos; // the renewal keeps this node live
						this.heartbeatSucceeded = true;
						// a renewal judged in the database's previous clock wrote an expiry that reads early or late
						// in the new one: it keeps the belief's deadline where it was, and the next one extends it
						if (sampleClock(sentNanos, received, renewedAt.get())) {
							group.extend(term, this.campaign.deadlineFor(sent), expiresAt);
						}
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

	/**
	 * A node that holds a lease is kept live by its renewals; the others heartbeat. A leader other than the keeper
	 * still writes its document when what it says changed (groups, address), and now and then so that it is never old
	 * enough to be removed: the keeper learns of its groups there. That tick it skips its read.
	 */
	private void heartbeatUnlessLeading(LoopJob job) {
		this.readSkipped = false;
		if (this.groups.get().stream().noneMatch(GroupElection::isLeader)) {
			heartbeat(job, (ex) -> false);
			return;
		}
		long now = this.loop.clock().nanoTime();
		boolean stale = this.lastDocument == null || !this.lastDocument.equals(document())
				|| now - this.lastDocumentNanos > this.settings.deadNodeRetention().dividedBy(2).toNanos();
		if (keeperGroup() == null && stale) {
			this.readSkipped = true;
			heartbeat(job, (ex) -> {
				this.readSkipped = false; // the renewals keep it live meanwhile: read, and try again next tick
				return true;
			});
			return;
		}
		job.next();
	}

	private NodeRecord document() {
		return new NodeRecord(this.nodeId, this.incarnation, this.holder.get().address(), this.startedAt, null,
				groupNames());
	}

	/** Writes this node's document; {@code recover} says which failures the job survives. */
	private void heartbeat(LoopJob job, Predicate<RuntimeException> recover) {
		NodeRecord record = document();
		this.loop.call(job, () -> this.store.heartbeat(record), (heartbeat, sent, received) -> {
			// two processes with one id take the document from each other at every heartbeat; once can be a write
			// of this process that the store answered late
			this.takeoversInARow = heartbeat.tookOver() ? this.takeoversInARow + 1 : 0;
			if (this.heartbeatSucceeded && this.takeoversInARow >= 2) {
				duplicateNodeIdSeen();
			}
			sampleClock(sent, received, heartbeat.writtenAt());
			this.lastHeartbeatNanos = sent;
			this.heartbeatSucceeded = true;
			this.lastDocument = record;
			this.lastDocumentNanos = sent;
		}, recover);
	}

	private void duplicateNodeIdSeen() {
		if (!this.duplicateNodeId) {
			log.error("Node id '{}' is used by another process as well as by this one ({}). Only one of them can "
					+ "lead; give every instance its own membership.node-id.", this.nodeId, this.incarnation);
		}
		this.duplicateNodeId = true;
	}

	/**
	 * Another incarnation with this node's id wrote at {@code stamp}, after this one started: two processes run with
	 * it. (A previous run of this node wrote before this one started.)
	 */
	private void checkWriterOfOwnId(String incarnation, Instant stamp) {
		if (!this.incarnation.equals(incarnation) && stamp != null && this.startedAt != null
				&& stamp.isAfter(this.startedAt)) {
			duplicateNodeIdSeen();
		}
	}

	/** The keeper of the roster reads the node documents; every other node reads the leases and a changed roster. */
	private void readMembership(LoopJob job) {
		if (this.readSkipped) {
			this.readSkipped = false;
			job.next();
			return;
		}
		GroupElection keeperOf = keeperGroup();
		if (keeperOf != null) {
			keepRoster(job, keeperOf);
		}
		else {
			followRoster(job);
		}
	}

	/** The default group, when this node leads it: then it keeps the roster. */
	private GroupElection keeperGroup() {
		for (GroupElection group : this.groups.get()) {
			if (group.name().equals(MembershipSettings.DEFAULT_GROUP) && group.isLeader()) {
				return group;
			}
		}
		return null;
	}

	private void followRoster(LoopJob job) {
		List<String> names = groupNames();
		long known = this.roster.version();
		this.loop.call(job, () -> this.store.findLeases(names, known), (reading, sent, received) -> {
			Instant certainlyPassed = this.loop.serverClock().lowerBoundAt(received);
			learnLeaders(reading.leases(), certainlyPassed);
			Roster changed = reading.roster();
			List<Member> caughtUp = (changed != null)
					? RosterKeeping.catchUp(this.roster.stored(), this.roster.version(), changed) : null;
			if (caughtUp != null) {
				takeRoster(changed.version(), caughtUp, changed.writtenAt(), received);
			}
			else if (changed != null) {
				job.now(this::readWholeRoster); // too far behind for the recent changes
			}
			else if (!listsSelf(this.roster.members())) {
				takeRoster(this.roster.version(), this.roster.stored(), null, received);
			}
			becomeReady();
		}, (ex) -> false);
	}

	private void readWholeRoster(LoopJob job) {
		this.loop.call(job, this.store::findRoster, (whole, sent, received) -> whole
			.ifPresent((roster) -> takeRoster(roster.version(), roster.members(), roster.writtenAt(), received)),
				(ex) -> false);
	}

	/**
	 * Takes a roster read from the store. A live member was live when the roster was written ({@code writtenAt}, null
	 * when unknown): its last heartbeat is shown as no older than that, however this node came by the entry (a change
	 * leaves a member's newer heartbeat out).
	 */
	private void takeRoster(long version, List<Member> stored, Instant writtenAt, long received) {
		List<Member> shown = new ArrayList<>(stored.size());
		for (Member m : stored) {
			if (m.live() && m.nodeId().equals(this.nodeId)) {
				checkWriterOfOwnId(m.incarnation(), m.lastHeartbeat());
			}
			boolean older = m.live() && writtenAt != null
					&& (m.lastHeartbeat() == null || m.lastHeartbeat().isBefore(writtenAt));
			shown.add(older ? new Member(m.nodeId(), m.incarnation(), m.address(), m.startedAt(), writtenAt, m.groups(),
					true) : m);
		}
		this.roster.take(version, stored, withSelf(shown, received));
	}

	/** A running node lists itself as live, also before the keeper's roster does. */
	private List<Member> withSelf(List<Member> members, long now) {
		if (listsSelf(members)) {
			return members;
		}
		List<Member> with = new ArrayList<>(members.size() + 1);
		members.stream().filter((m) -> !m.nodeId().equals(this.nodeId)).forEach(with::add);
		with.add(self(this.loop.serverClock().estimateAt(now)));
		return with;
	}

	private boolean listsSelf(List<Member> members) {
		return members.stream()
			.anyMatch((m) -> m.live() && m.nodeId().equals(this.nodeId) && this.incarnation.equals(m.incarnation()));
	}

	private Member self(Instant lastHeartbeat) {
		return new Member(this.nodeId, this.incarnation, this.holder.get().address(), this.startedAt, lastHeartbeat,
				groupNames(), true);
	}

	private void learnLeaders(Map<String, LeaseRecord> leases, Instant certainlyPassed) {
		for (LeaseRecord lease : leases.values()) {
			if (lease.holder() != null && lease.holder().nodeId().equals(this.nodeId)) {
				checkWriterOfOwnId(lease.holder().incarnation(), lease.renewedAt());
			}
		}
		for (GroupElection group : this.groups.get()) {
			if (!group.isLeader()) { // this node knows best
				group.leader().updateFromLease(leases.get(group.name()), certainlyPassed);
			}
		}
	}

	/**
	 * The keeper's read: every node document, and the leases when other groups have leaders that the roster must
	 * count as live or this node follows; then the roster, written only when it changed.
	 */
	private void keepRoster(LoopJob job, GroupElection keeperOf) {
		this.loop.call(job, this.store::findNodes, (records, sent, received) -> {
			Instant now = this.loop.serverClock().estimateAt(received);
			records.stream()
				.filter((r) -> r.nodeId().equals(this.nodeId))
				.forEach((r) -> checkWriterOfOwnId(r.incarnation(), r.updatedAt()));
			Set<String> others = RosterKeeping.groupsOf(this.roster.members());
			records.forEach((r) -> others.addAll(r.groups()));
			others.addAll(groupNames());
			this.groups.get().stream().filter(GroupElection::isLeader).forEach((g) -> others.remove(g.name()));
			if (others.isEmpty()) {
				job.now((j) -> writeRosterIfChanged(j, keeperOf, records, Map.of(), now));
				return;
			}
			long known = this.roster.version();
			job.now((j) -> this.loop.call(j, () -> this.store.findLeases(others, known), (reading, s, r) -> {
				learnLeaders(reading.leases(), this.loop.serverClock().lowerBoundAt(r));
				j.now((w) -> writeRosterIfChanged(w, keeperOf, records, reading.leases(), now));
			}, (ex) -> false));
		}, (ex) -> false);
	}

	private void writeRosterIfChanged(LoopJob job, GroupElection keeperOf, List<NodeRecord> records,
			Map<String, LeaseRecord> leases, Instant now) {
		this.deadNodesSeen = RosterKeeping.anyNotSeenSince(records, deadNodeCutoff());
		LeadershipTerm term = keeperOf.term();
		if (term == null || !term.isValid()) {
			job.next(); // no longer the keeper
			return;
		}
		List<Member> next = this.keeping.build(self(now), records, leases, this.roster.stored(), now);
		if (this.rosterWrittenInEpoch == term.epoch() && !RosterKeeping.differs(this.roster.stored(), next)) {
			becomeReady();
			job.next();
			return;
		}
		long sequence = ++this.rosterWrites;
		// the recent changes go on from the last write only while this term wrote every roster since
		List<RosterChange> changes = RosterKeeping.recent(
				(this.rosterWrittenInEpoch == term.epoch()) ? this.recentChanges : List.of(),
				RosterKeeping.change(this.roster.version(), this.roster.stored(), next));
		this.loop.call(job, () -> this.store.writeRoster(next, changes, this.nodeId, term.epoch(), sequence),
				(version, sent, received) -> {
					if (version.isPresent()) {
						this.roster.take(version.getAsLong(), next, next);
						this.rosterWrittenInEpoch = term.epoch();
						this.recentChanges = changes;
					}
					else if (term.isValid()) {
						log.warn("The member roster was written with a newer term than this keeper's (epoch {}), or "
								+ "the default group's lease document was replaced; leaving it as it is", term.epoch());
					}
					becomeReady();
				}, (ex) -> {
					// written or not: write again next time; meanwhile every node keeps the roster it has, and the
					// tick goes on (a roster too large for one document fails here every time, and says so)
					this.rosterWrittenInEpoch = 0;
					this.recentChanges = List.of();
					if (ex instanceof RosterTooLargeException) {
						log.error(ex.getMessage());
					}
					else {
						log.warn("Could not write the member roster ({} members): {}", next.size(), ex.getMessage());
					}
					return true;
				});
	}

	private void becomeReady() {
		if (!this.ready) {
			this.ready = true;
			this.events.publish(new NodeReadyEvent(this.nodeId));
		}
	}

	private Instant deadNodeCutoff() {
		return this.loop.serverClock()
			.lowerBoundAt(this.loop.clock().nanoTime())
			.minus(this.settings.deadNodeRetention());
	}

	/** The keeper removes the documents of nodes not seen for the retention, when its last read showed some. */
	private void removeDeadNodesWhenSeen(LoopJob job) {
		if (!this.deadNodesSeen || keeperGroup() == null) {
			job.next();
			return;
		}
		this.deadNodesSeen = false;
		Instant cutoff = deadNodeCutoff();
		this.loop.call(job, () -> this.store.removeNodesNotSeenSince(cutoff), (removed, sent, received) -> {
			if (removed > 0) {
				log.info("Removed {} node document(s) not seen since {}", removed, cutoff);
			}
		}, (ex) -> false);
	}

	private List<String> groupNames() {
		return this.groups.get().stream().map(GroupElection::name).toList();
	}

	/**
	 * A lease this node took under the database's previous clock and does not lead under: it may have replaced a lease
	 * another node still believes in, whose belief ends within a lease duration by that node's own deadline. So this
	 * node stays out of the race, and keeps the lease, until then; then it releases it, so that the group is not held
	 * up for as long as the jump too (the lease's expiry was written in the previous clock). A conditional release:
	 * a no-op if the lease has moved on meanwhile.
	 */
	void declined(GroupElection group, long epoch) {
		long lease = this.settings.leaseDuration().toNanos();
		group.holdOff(this.loop.clock().nanoTime() + lease);
		this.loop.schedule(() -> release(group.name(), epoch), lease);
	}

	/**
	 * Releases the lease of a group this node resigned; the others see it in their next read of the leases. Heartbeats
	 * first: the released lease no longer keeps this node live, and the keeper must not take it for gone meanwhile.
	 */
	LoopJob release(String group, long epoch) {
		LoopJob job = new LoopJob("release of group " + group,
				(ex) -> log.warn("Membership release of group {} failed: {}", group, ex.getMessage()));
		job.then((j) -> {
			if (this.lifecycle.ticks()) {
				heartbeat(j, (ex) -> true); // the release matters more
			}
			else {
				j.next();
			}
		});
		return job.then((j) -> this.loop.call(j, () -> this.store.release(group, this.holder.get(), epoch),
				(released, sent, received) -> {
					if (released) {
						this.events.publish(new LeaseReleasedEvent(this.nodeId, group, epoch));
					}
				}, (ex) -> false));
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
				group.leader().learn(leader);
			}
			j.next();
		});
	}

}
