package dev.membership.test;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.FireMark;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

/**
 * A {@link MembershipStore} in memory, for tests: no database, and the same answers as
 * the MongoDB store (it passes the same contract suite). Times come from a {@link Clock},
 * kept in milliseconds as MongoDB keeps them. Every operation is atomic; stores made with
 * {@link #sharing(InMemoryMembershipStore)} see the same data, like clients of one
 * database, so several nodes of a test cluster can each have their own.
 */
public final class InMemoryMembershipStore implements MembershipStore {

	private final Data data;

	/** A store on its own data, on the system clock. */
	public InMemoryMembershipStore() {
		this(Clock.systemUTC());
	}

	/**
	 * A store on its own data, on {@code clock} (the "server's" clock: tests may move
	 * it).
	 */
	public InMemoryMembershipStore(Clock clock) {
		this(new Data(clock));
	}

	private InMemoryMembershipStore(Data data) {
		this.data = data;
	}

	/** Another store on the same data and clock, as another client of one database. */
	public static InMemoryMembershipStore sharing(InMemoryMembershipStore store) {
		return new InMemoryMembershipStore(store.data);
	}

	@Override
	public void initialize() {
	}

	@Override
	public Optional<Instant> serverTime() {
		return Optional.of(this.data.now());
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		return acquire(group, holder, null, 0, expiredBefore, expiresAt);
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		return acquire(group, holder, from, epoch, expiredBefore, expiresAt);
	}

	private Optional<LeaseRecord> acquire(String group, Holder holder, @Nullable String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		synchronized (this.data) {
			LeaseRecord lease = this.data.leases.get(group);
			boolean free = lease == null || lease.expiresAt().isBefore(millis(expiredBefore))
					|| (lease.isHeldBy(holder) && lease.expiresAt().isBefore(millis(expiresAt)))
					|| (from != null && lease.holder() != null && from.equals(lease.holder().nodeId())
							&& lease.epoch() == epoch);
			if (!free) {
				return Optional.empty();
			}
			Instant now = this.data.now();
			LeaseRecord taken = new LeaseRecord(group, holder, (lease != null) ? lease.epoch() + 1 : 1,
					// the last term's fires
					millis(expiresAt), now, now, (lease != null) ? lease.fires() : List.of());
			this.data.leases.put(group, taken);
			return Optional.of(taken);
		}
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		synchronized (this.data) {
			LeaseRecord lease = this.data.leases.get(group);
			// held, not released, and not expired by the store's clock: a late renewal
			// never revives a lease
			if (lease == null || !lease.isHeldBy(holder) || lease.epoch() != epoch
					|| !lease.expiresAt().isAfter(LeaseRecord.RELEASED)
					|| !lease.expiresAt().isAfter(this.data.now())) {
				return Optional.empty();
			}
			Instant extended = lease.expiresAt().isAfter(millis(expiresAt)) ? lease.expiresAt() : millis(expiresAt);
			Instant now = this.data.now();
			this.data.leases.put(group, new LeaseRecord(group, lease.holder(), epoch, extended, lease.acquiredAt(), now,
					(fires != null) ? firesInMillis(fires) : lease.fires()));
			return Optional.of(now);
		}
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		synchronized (this.data) {
			long renewed = 0;
			Instant expiry = millis(expiresAt);
			for (Map.Entry<String, Long> lease : epochs.entrySet()) {
				LeaseRecord now = this.data.leases.get(lease.getKey());
				// a late request of the holder, after a newer one, leaves the newer one's
				// stamp
				boolean newer = now != null && now.expiresAt() != null && now.expiresAt().isBefore(expiry);
				if (newer && renew(lease.getKey(), holder, lease.getValue(), expiresAt, fires.get(lease.getKey()))
					.isPresent()) {
					renewed++;
				}
			}
			return renewed;
		}
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		synchronized (this.data) {
			LeaseRecord lease = this.data.leases.get(group);
			if (lease == null || !lease.isHeldBy(holder) || lease.epoch() != epoch) {
				return false;
			}
			this.data.leases.put(group, new LeaseRecord(group, lease.holder(), epoch, LeaseRecord.RELEASED,
					lease.acquiredAt(), lease.renewedAt(), (fires != null) ? firesInMillis(fires) : lease.fires()));
			return true;
		}
	}

	/**
	 * Sets when the lease of {@code group} expires, behind its holder's back, as an
	 * operator editing the document would ({@link LeaseRecord#RELEASED} lets it go as a
	 * release does): for tests of what a node does when its lease changes under it.
	 * Holder and epoch stay; nothing happens when there is no such lease.
	 */
	public void setLeaseExpiry(String group, Instant expiresAt) {
		synchronized (this.data) {
			LeaseRecord lease = this.data.leases.get(group);
			if (lease != null) {
				this.data.leases.put(group, new LeaseRecord(group, lease.holder(), lease.epoch(), millis(expiresAt),
						lease.acquiredAt(), lease.renewedAt()));
			}
		}
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		synchronized (this.data) {
			return Optional.ofNullable(this.data.leases.get(group));
		}
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		synchronized (this.data) {
			Map<String, LeaseRecord> found = new HashMap<>();
			for (String group : groups) {
				LeaseRecord lease = this.data.leases.get(group);
				if (lease != null) {
					found.put(group, lease);
				}
			}
			Roster roster = this.data.roster;
			Roster changed = (roster != null && roster.version() != rosterVersion) ? new Roster(roster.version(),
					roster.keeperNodeId(), roster.epoch(), roster.writtenAt(), List.of(), roster.changes(), Map.of())
					: null;
			return new LeaseReading(found, changed);
		}
	}

	@Override
	public Optional<Roster> findRoster() {
		synchronized (this.data) {
			return Optional.ofNullable(this.data.roster);
		}
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		synchronized (this.data) {
			Roster current = this.data.roster;
			if (current != null && (current.epoch() > epoch
					|| (current.epoch() == epoch && this.data.rosterSequence >= sequence))) {
				return OptionalLong.empty();
			}
			List<RosterChange> kept = new ArrayList<>(changes.size());
			for (RosterChange change : changes) {
				kept.add(new RosterChange(change.fromVersion(), Roster.toMillis(change.upserted()),
						Roster.toMillis(change.removed()), change.placed()));
			}
			long version = (current != null) ? current.version() + 1 : 1;
			this.data.roster = new Roster(version, keeperNodeId, epoch, this.data.now(), Roster.toMillis(members), kept,
					assignments);
			this.data.rosterSequence = sequence;
			return OptionalLong.of(version);
		}
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		synchronized (this.data) {
			NodeRecord previous = this.data.nodes.get(node.nodeId());
			Instant now = this.data.now();
			this.data.nodes.put(node.nodeId(),
					new NodeRecord(node.nodeId(), node.incarnation(), node.address(),
							millis((node.startedAt() != null) ? node.startedAt() : now), now, node.groups(),
							node.partitions()));
			return new Heartbeat(now, previous != null && !previous.incarnation().equals(node.incarnation()));
		}
	}

	@Override
	public List<NodeRecord> findNodes() {
		synchronized (this.data) {
			return new ArrayList<>(this.data.nodes.values());
		}
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		synchronized (this.data) {
			NodeRecord node = this.data.nodes.get(nodeId);
			if (node != null && node.incarnation().equals(incarnation)) {
				this.data.nodes.remove(nodeId);
			}
		}
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		synchronized (this.data) {
			int before = this.data.nodes.size();
			this.data.nodes.values().removeIf((node) -> node.updatedAt().isBefore(millis(cutoff)));
			return before - this.data.nodes.size();
		}
	}

	/** As a store that keeps milliseconds keeps them. */
	private static List<FireMark> firesInMillis(List<FireMark> fires) {
		return fires.stream()
			.map((f) -> new FireMark(f.job(), millis(f.at()), f.ended(), f.owed(), f.schedule()))
			.toList();
	}

	private static @Nullable Instant millis(@Nullable Instant instant) {
		return (instant != null) ? Instant.ofEpochMilli(instant.toEpochMilli()) : null;
	}

	/** What several stores share, as one database; guarded by itself. */
	private static final class Data {

		private final Clock clock;

		private final Map<String, LeaseRecord> leases = new TreeMap<>();

		private final Map<String, NodeRecord> nodes = new TreeMap<>();

		private @Nullable Roster roster;

		/** The sequence of the roster's last write, its fence within one epoch. */
		private long rosterSequence;

		Data(Clock clock) {
			this.clock = clock;
		}

		Instant now() {
			return millis(this.clock.instant());
		}

	}

}
