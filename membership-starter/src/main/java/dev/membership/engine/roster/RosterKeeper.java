package dev.membership.engine.roster;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.OutgoingNotices;
import dev.membership.engine.events.Readiness;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.lease.Campaign;
import dev.membership.engine.lease.PartitionReads;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.placement.Assignments;
import dev.membership.engine.placement.CoordinatorPlacement;
import dev.membership.engine.placement.RestartGrace;
import dev.membership.engine.placement.Steering;
import dev.membership.engine.term.Term;
import dev.membership.leadership.LeaderInfo;
import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RosterTooLargeException;

/**
 * The keeper of the roster (the leader of the default group): each interval it reads
 * every node document, and the leases when other groups have leaders that the roster must
 * count as live; writes the roster when that changed; and removes the documents of
 * long-dead nodes when its read shows some. What to write is {@link RosterDecisions}'s
 * call. Confined to the loop.
 */
public final class RosterKeeper {

	private static final Logger log = LoggerFactory.getLogger(RosterKeeper.class);

	private final MembershipSettings settings;

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ThisNode self;

	private final Heartbeats heartbeats;

	private final Campaign campaign;

	private final MemberRoster roster;

	private final Readiness readiness;

	private final RosterDecisions keeping;

	private final RestartGrace grace;

	private final Assignments assignments;

	private final PartitionReads partitions;

	/** Tells the nodes a write moved work for to read it now. */
	private final OutgoingNotices news;

	private long writes;

	/**
	 * The keeper's term in which this node last wrote the roster it holds as stored, or
	 * 0: then the store may hold another (a write that failed may have been applied all
	 * the same; other keepers wrote while this node did not read), and the next write
	 * goes ahead whether the roster changed or not.
	 */
	private long writtenInEpoch;

	/** The recent changes of the last roster this node wrote. */
	private List<RosterChange> recentChanges = List.of();

	private boolean deadNodesSeen;

	/**
	 * The keeper's term in which it read the placement as stored before its first write,
	 * or 0.
	 */
	private long placementReadIn;

	public RosterKeeper(MembershipSettings settings, MembershipStore store, NodeLoop loop, ThisNode self,
			Heartbeats heartbeats, Campaign campaign, MemberRoster roster, Readiness readiness, Assignments assignments,
			PartitionReads partitions, OutgoingNotices news) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.self = self;
		this.heartbeats = heartbeats;
		this.campaign = campaign;
		this.roster = roster;
		this.readiness = readiness;
		this.keeping = new RosterDecisions(settings.livenessWindow());
		this.grace = new RestartGrace(settings.restartGrace());
		this.assignments = assignments;
		this.partitions = partitions;
		this.news = news;
	}

	public void keep(LoopJob job, GroupElection keeperOf) {
		Term term = keeperOf.term();
		if (term != null && this.writtenInEpoch != term.epoch() && this.placementReadIn != term.epoch()) {
			// a new term's first write starts from the roster as stored: this node's view
			// of it, read as a follower, may miss the last write of the keeper before it
			// (an operator's pin taken off, say), which this write would otherwise undo
			long known = this.roster.version();
			this.loop.call(job, () -> this.store.findLeases(List.of(), known), (reading, sent, received) -> {
				// this node's view is the roster as stored
				if (reading.roster() == null) {
					this.placementReadIn = term.epoch();
					job.now((j) -> keep(j, keeperOf));
					return;
				}
				job.now((j) -> this.loop.call(j, this.store::findRoster, (whole, s, r) -> {
					// members and placement both, as of one version: the first write then
					// records what it changed from there, and the members catch up by it
					// instead of reading the whole roster
					whole.ifPresent((w) -> {
						this.assignments.take(w.keeperNodeId(), w.assignments(), w.version());
						this.roster.take(w.version(), w.members(),
								RosterFollower.withSelf(RosterFollower.shown(w.members(), w.writtenAt()),
										this.self.member(this.loop.serverClock().estimateAt(r))));
					});
					this.placementReadIn = term.epoch();
					j.now((k) -> keep(k, keeperOf));
				}, (ex) -> false));
			}, (ex) -> false);
			return;
		}
		this.loop.call(job, this.store::findNodes, (records, sent, received) -> {
			Instant now = this.loop.serverClock().estimateAt(received);
			this.roster.checked(this.loop.serverClock().estimateAt(sent + (received - sent) / 2));
			records.stream()
				.filter((r) -> r.nodeId().equals(this.self.nodeId()))
				.forEach((r) -> this.heartbeats.writtenBy(r.incarnation(), r.updatedAt()));
			Set<String> others = RosterDecisions.groupsOf(this.roster.members());
			records.forEach((r) -> others.addAll(r.groups()));
			others.addAll(this.self.plainGroupNames());
			this.roster.members().forEach((m) -> others.removeAll(m.partitions().keySet()));
			records.forEach((r) -> others.removeAll(r.partitions().keySet()));
			others.removeAll(this.self.partitions().keySet());
			this.self.groups().stream().filter(GroupElection::isLeader).forEach((g) -> others.remove(g.name()));
			others.addAll(this.partitions.names());
			if (others.isEmpty()) {
				job.now((j) -> write(j, keeperOf, records, Map.of(), now));
				return;
			}
			long known = this.roster.version();
			job.now((j) -> this.loop.call(j, () -> this.store.findLeases(others, known), (reading, s, r) -> {
				this.campaign.learn(reading.leases(), this.loop.serverClock().lowerBoundAt(r));
				this.partitions.read(reading.leases());
				j.now((w) -> write(w, keeperOf, records, reading.leases(), now));
			}, (ex) -> false));
		}, (ex) -> false);
	}

	private void write(LoopJob job, GroupElection keeperOf, List<NodeRecord> records, Map<String, LeaseRecord> leases,
			Instant now) {
		this.deadNodesSeen = RosterDecisions.anyNotSeenSince(records, deadNodeCutoff());
		Term term = keeperOf.term();
		if (term == null || !term.isValid()) {
			job.next(); // no longer the keeper
			return;
		}
		List<Member> next = this.keeping.build(this.self.member(now), records, leases, this.roster.stored(), now);
		Steering steering = this.assignments.steering();
		List<Steering.Directive> directives = steering.pending(term.epoch());
		Map<String, GroupAssignment> placement = RestartGrace.keepForAway(
				Steering.steer(
						CoordinatorPlacement.place(this.assignments.policy(), next, this.assignments.placed(),
								withOwn(leases), now, this.self.nodeId()),
						this.assignments.placed(), directives, next, now, this.settings.maxMovesPercent()),
				// members away within the grace keep theirs
				this.assignments.placed(), this.grace.away(next, now));
		if (this.writtenInEpoch == term.epoch() && !RosterDecisions.differs(this.roster.stored(), next)
				&& placement.equals(this.assignments.placed())) {
			steering.done(directives); // they change nothing
			this.readiness.reached();
			job.next();
			return;
		}
		long sequence = ++this.writes;
		// what it changed in the placements is known only from the placements of the
		// roster it changes
		List<PlacementChange> placed = (this.assignments.placedVersion() == this.roster.version())
				? PlacementChanges.between(this.assignments.placed(), placement) : null;
		// the recent changes go on from the last write only while this term wrote every
		// roster since
		List<RosterChange> changes = RosterDecisions.recent(
				(this.writtenInEpoch == term.epoch()) ? this.recentChanges : List.of(),
				RosterDecisions.change(this.roster.version(), this.roster.stored(), next, placed,
						placement.values().stream().mapToInt(GroupAssignment::partitions).sum()));
		this.loop.call(job,
				() -> this.store.writeRoster(next, changes, placement, this.self.nodeId(), term.epoch(), sequence),
				(version, sent, received) -> {
					if (version.isPresent()) {
						steering.done(directives);
						Set<String> moved = RosterDecisions.movedFor(this.assignments.placed(), placement);
						moved.remove(this.self.nodeId());
						this.assignments.take(this.self.nodeId(), placement, version.getAsLong());
						this.roster.take(version.getAsLong(), next, next);
						// once the roster lists a newcomer, so that the broadcast reaches
						// it
						if (!moved.isEmpty()) {
							this.news.rosterChanged(version.getAsLong(), moved);
						}
						this.writtenInEpoch = term.epoch();
						this.recentChanges = changes;
					}
					else if (term.isValid()) {
						log.warn(
								"The member roster was written with a newer term than this keeper's (epoch {}), or "
										+ "the default group's lease document was replaced; leaving it as it is",
								term.epoch());
					}
					this.readiness.reached();
				}, (ex) -> {
					// written or not: write again next time; meanwhile every node keeps
					// the roster it has, and the tick goes on (a roster too large for one
					// document fails here every time, and says so)
					this.writtenInEpoch = 0;
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

	/**
	 * The leases read, and this node's own plain groups while it leads them: who holds
	 * each group now.
	 */
	private Map<String, LeaseRecord> withOwn(Map<String, LeaseRecord> leases) {
		Map<String, LeaseRecord> all = new HashMap<>(leases);
		for (GroupElection group : this.self.groups()) {
			LeaderInfo self = group.unit().isPartition() ? null : group.self(null);
			if (self != null) {
				all.put(group.name(), new LeaseRecord(group.name(), this.self.holder(), self.epoch(),
						self.leaseExpiresAt(), null, null));
			}
		}
		return all;
	}

	private Instant deadNodeCutoff() {
		return this.loop.serverClock()
			.lowerBoundAt(this.loop.clock().nanoTime())
			.minus(this.settings.deadNodeRetention());
	}

	/**
	 * Removes the documents of nodes not seen for the retention, when the keeper's last
	 * read showed some.
	 */
	public void removeDeadNodesWhenSeen(LoopJob job) {
		if (!this.deadNodesSeen || this.self.keeperGroup() == null) {
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

}
