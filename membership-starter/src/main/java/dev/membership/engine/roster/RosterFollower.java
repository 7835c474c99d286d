package dev.membership.engine.roster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.events.Readiness;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.lease.Campaign;
import dev.membership.engine.lease.PartitionReads;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.placement.Assignments;
import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.Roster;

/**
 * A node that does not keep the roster follows it: each interval it reads its groups'
 * leases and, when the roster changed, the roster's recent changes (the whole roster only
 * when too far behind), and takes what they say.
 */
public final class RosterFollower {

	private static final Logger log = LoggerFactory.getLogger(RosterFollower.class);

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ThisNode self;

	private final Heartbeats heartbeats;

	private final Campaign campaign;

	private final MemberRoster roster;

	private final Readiness readiness;

	private final Assignments assignments;

	private final PartitionReads partitions;

	public RosterFollower(MembershipStore store, NodeLoop loop, ThisNode self, Heartbeats heartbeats, Campaign campaign,
			MemberRoster roster, Readiness readiness, Assignments assignments, PartitionReads partitions) {
		this.store = store;
		this.loop = loop;
		this.self = self;
		this.heartbeats = heartbeats;
		this.campaign = campaign;
		this.roster = roster;
		this.readiness = readiness;
		this.assignments = assignments;
		this.partitions = partitions;
	}

	public void follow(LoopJob job) {
		Set<String> names = new TreeSet<>(this.self.plainGroupNames());
		names.addAll(this.partitions.names());
		long known = this.roster.version();
		this.loop.call(job, () -> this.store.findLeases(names, known), (reading, sent, received) -> {
			this.campaign.learn(reading.leases(), this.loop.serverClock().lowerBoundAt(received));
			checkedAsOf(reading.leases());
			this.partitions.read(reading.leases());
			Roster changed = reading.roster();
			if (changed != null) {
				takeChanged(job, changed, received);
			}
			else if (!this.self.isListedIn(this.roster.members())) {
				take(this.roster.version(), this.roster.stored(), null, received);
			}
			this.readiness.reached();
		}, (ex) -> false);
	}

	/**
	 * Told that the keeper wrote roster {@code version}, which moves work to or from this
	 * node: reads it now (the roster alone), unless this node keeps the roster or has
	 * read that version already; then {@code after}.
	 */
	public LoopJob noticed(long version, Consumer<LoopJob> after) {
		LoopJob job = new LoopJob("read of roster " + version,
				(ex) -> log.debug("Could not read roster {} when told of it: {}", version, ex.getMessage()));
		return job.then((j) -> {
			if (this.self.keeperGroup() != null || this.roster.version() >= version) {
				j.finish();
				return;
			}
			long known = this.roster.version();
			this.loop.call(j, () -> this.store.findLeases(List.of(), known), (reading, sent, received) -> {
				if (reading.roster() != null) {
					takeChanged(j, reading.roster(), received);
				}
			}, (ex) -> false);
		}).then((j) -> after.accept(j));
	}

	/**
	 * Catches up on the members and the placements by {@code changed}'s recent changes;
	 * reads the whole roster when too far behind for them (or when they do not say what
	 * they changed in the placements).
	 */
	private void takeChanged(LoopJob job, Roster changed, long received) {
		long version = this.roster.version();
		List<Member> caughtUp = RosterDecisions.catchUp(this.roster.stored(), version, changed);
		Map<String, GroupAssignment> placed = (this.assignments.placedVersion() == version)
				? PlacementChanges.catchUp(this.assignments.placed(), version, changed) : null;
		if (caughtUp != null && placed != null) {
			this.assignments.take(changed.keeperNodeId(), placed, changed.version());
			take(changed.version(), caughtUp, changed.writtenAt(), received);
		}
		else {
			job.now(this::readWhole);
		}
	}

	/**
	 * The keeper reads the node documents in each tick in which it renews the default
	 * group's lease: the members are live as of that renewal (the roster says otherwise
	 * once the keeper wrote a change).
	 */
	private void checkedAsOf(Map<String, LeaseRecord> leases) {
		LeaseRecord lease = leases.get(MembershipSettings.DEFAULT_GROUP);
		if (lease != null && lease.holder() != null && !LeaseRecord.RELEASED.equals(lease.expiresAt())) {
			this.roster.checked(lease.renewedAt());
		}
	}

	private void readWhole(LoopJob job) {
		this.loop.call(job, this.store::findRoster, (whole, sent, received) -> whole.ifPresent((roster) -> {
			this.assignments.take(roster.keeperNodeId(), roster.assignments(), roster.version());
			take(roster.version(), roster.members(), roster.writtenAt(), received);
		}), (ex) -> false);
	}

	/** Takes a roster read from the store, as this node shows it. */
	private void take(long version, List<Member> stored, @Nullable Instant writtenAt, long received) {
		for (Member m : stored) {
			if (m.live() && m.nodeId().equals(this.self.nodeId())) {
				this.heartbeats.writtenBy(m.incarnation(), m.lastHeartbeat());
				if (!this.self.isDescribedBy(m)) {
					this.heartbeats.documentLost();
				}
			}
		}
		List<Member> shown = shown(stored, writtenAt);
		this.roster.take(version, stored, this.self.isListedIn(shown) ? shown
				: withSelf(shown, this.self.member(this.loop.serverClock().estimateAt(received))));
	}

	/**
	 * A live member was live when the roster was written ({@code writtenAt}, null when
	 * unknown): its last heartbeat is shown as no older than that, however this node came
	 * by the entry (a change leaves out a member's newer heartbeat, which is no news).
	 */
	static List<Member> shown(List<Member> stored, @Nullable Instant writtenAt) {
		List<Member> shown = new ArrayList<>(stored.size());
		for (Member m : stored) {
			Instant last = m.lastHeartbeat();
			boolean older = m.live() && writtenAt != null && (last == null || last.isBefore(writtenAt));
			shown.add(older ? new Member(m.nodeId(), m.incarnation(), m.address(), m.startedAt(), writtenAt, m.groups(),
					true, m.partitions()) : m);
		}
		return shown;
	}

	/**
	 * A running node lists itself as live, also before the keeper's roster does: in place
	 * of any other entry.
	 */
	static List<Member> withSelf(List<Member> members, Member self) {
		List<Member> with = new ArrayList<>(members.size() + 1);
		members.stream().filter((m) -> !m.nodeId().equals(self.nodeId())).forEach(with::add);
		with.add(self);
		return with;
	}

}
