package dev.membership.simulation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.membership.liveness.Member;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

/**
 * A store in memory with the semantics of the MongoDB stores for every operation the node uses: one atomic operation
 * per call, conditional upserts on {@code _id}, times stamped by the server's clock and kept in milliseconds (like BSON
 * dates), the lease's expiry moved by the same updates. Passes the store contract suite, and can be broken on purpose
 * to show that the simulator catches it.
 */
final class SimulatedStore implements MembershipStore {

	/** Deliberate bugs, for the proof that the simulator can fail. */
	enum Defect {

		NONE,

		/**
		 * The holder may take its own lease whatever its expiry (the filter before the simulator found this): an
		 * acquisition that reaches the store late starts a term its holder does not know of.
		 */
		LATE_ACQUISITION_STARTS_A_TERM,

		/** Renew sets the expiry instead of only moving it forward: a renewal that reaches the store late shortens it. */
		LATE_RENEWAL_SHORTENS_THE_LEASE,

		/**
		 * An acquisition does not return the store's stamp, so its acquirer cannot see that it judged the lease in the
		 * database's previous clock (a jump between its last sample and the write).
		 */
		ACQUISITION_NOT_STAMPED

	}

	private static final Instant RELEASED = Instant.EPOCH;

	private final Supplier<Instant> clock;

	private final Defect defect;

	private final Map<String, LeaseRecord> leases = new TreeMap<>();

	private final Map<String, NodeRecord> nodes = new TreeMap<>();

	private Roster roster;

	/** The roster's fence: the epoch and sequence of its last write. */
	private long rosterSequence;

	private Consumer<Supplier<String>> trace = (line) -> {
	};

	SimulatedStore(Supplier<Instant> clock, Defect defect) {
		this.clock = clock;
		this.defect = defect;
	}

	/** Where to note every lease write, for the trace of a failed run. */
	SimulatedStore traceTo(Consumer<Supplier<String>> trace) {
		this.trace = trace;
		return this;
	}

	/** The server's clock, truncated to milliseconds as BSON dates are. */
	private Instant now() {
		return millis(this.clock.get());
	}

	private static Instant millis(Instant instant) {
		return Instant.ofEpochMilli(instant.toEpochMilli());
	}

	@Override
	public void initialize() {
	}

	@Override
	public synchronized Instant serverTime() {
		return now();
	}

	@Override
	public synchronized Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore,
			Instant expiresAt) {
		LeaseRecord lease = this.leases.get(group);
		boolean free = lease == null || lease.expiresAt().isBefore(millis(expiredBefore))
				|| (lease.isHeldBy(holder) && (lease.expiresAt().isBefore(millis(expiresAt))
						|| this.defect == Defect.LATE_ACQUISITION_STARTS_A_TERM));
		if (!free) {
			return Optional.empty(); // the filter did not match, and the upsert's insert hit the duplicate key
		}
		long epoch = (lease != null) ? lease.epoch() + 1 : 1;
		LeaseRecord taken = new LeaseRecord(group, holder, epoch, millis(expiresAt), now(), now());
		this.leases.put(group, taken);
		if (this.defect == Defect.ACQUISITION_NOT_STAMPED) {
			return Optional.of(new LeaseRecord(group, holder, epoch, taken.expiresAt(), null, null));
		}
		this.trace.accept(() -> "store: " + holder.nodeId() + " acquired " + group + " epoch " + epoch + " until "
				+ taken.expiresAt());
		return Optional.of(taken);
	}

	@Override
	public synchronized Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt) {
		LeaseRecord lease = this.leases.get(group);
		if (lease == null || !lease.isHeldBy(holder) || lease.epoch() != epoch || !lease.expiresAt().isAfter(RELEASED)) {
			return Optional.empty();
		}
		Instant extended = (lease.expiresAt().isAfter(millis(expiresAt))
				&& this.defect != Defect.LATE_RENEWAL_SHORTENS_THE_LEASE) ? lease.expiresAt() : millis(expiresAt);
		Instant now = now();
		this.leases.put(group,
				new LeaseRecord(group, lease.holder(), lease.epoch(), extended, lease.acquiredAt(), now));
		this.trace.accept(() -> "store: " + holder.nodeId() + " renewed " + group + " epoch " + lease.epoch()
				+ " with " + epoch + " until " + extended);
		return Optional.of(now);
	}

	@Override
	public synchronized boolean release(String group, Holder holder, long epoch) {
		LeaseRecord lease = this.leases.get(group);
		if (lease == null || !lease.isHeldBy(holder) || lease.epoch() != epoch) {
			return false;
		}
		this.leases.put(group,
				new LeaseRecord(group, lease.holder(), epoch, RELEASED, lease.acquiredAt(), lease.renewedAt()));
		this.trace.accept(() -> "store: " + holder.nodeId() + " released " + group + " epoch " + epoch);
		return true;
	}

	@Override
	public synchronized Optional<LeaseRecord> findLease(String group) {
		return Optional.ofNullable(this.leases.get(group));
	}

	@Override
	public synchronized LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		Map<String, LeaseRecord> found = new HashMap<>();
		for (String group : groups) {
			LeaseRecord lease = this.leases.get(group);
			if (lease != null) {
				found.put(group, lease);
			}
		}
		Roster changed = (this.roster != null && this.roster.version() != rosterVersion)
				? new Roster(this.roster.version(), this.roster.keeperNodeId(), this.roster.epoch(),
						this.roster.writtenAt(), List.of(), this.roster.changes())
				: null;
		return new LeaseReading(found, changed);
	}

	@Override
	public synchronized Optional<Roster> findRoster() {
		return Optional.ofNullable(this.roster);
	}

	@Override
	public synchronized OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			String keeperNodeId, long epoch, long sequence) {
		Roster current = this.roster;
		if (current != null && (current.epoch() > epoch
				|| (current.epoch() == epoch && this.rosterSequence >= sequence))) {
			return OptionalLong.empty(); // the filter did not match, and the upsert's insert hit the duplicate key
		}
		List<RosterChange> stored = new ArrayList<>(changes.size());
		for (RosterChange change : changes) {
			stored.add(new RosterChange(change.fromVersion(), millis(change.upserted()), millis(change.removed())));
		}
		long version = (current != null) ? current.version() + 1 : 1;
		this.roster = new Roster(version, keeperNodeId, epoch, now(), millis(members), stored);
		this.rosterSequence = sequence;
		return OptionalLong.of(version);
	}

	/** The last roster written, for the simulator's checks. */
	synchronized Roster roster() {
		return this.roster;
	}

	@Override
	public synchronized Heartbeat heartbeat(NodeRecord node) {
		NodeRecord previous = this.nodes.get(node.nodeId());
		Instant now = now();
		this.nodes.put(node.nodeId(), new NodeRecord(node.nodeId(), node.incarnation(), node.address(),
				millisOrNull(node.startedAt()), now, node.groups()));
		return new Heartbeat(now, previous != null && !previous.incarnation().equals(node.incarnation()));
	}

	private static List<Member> millis(List<Member> members) {
		List<Member> stored = new ArrayList<>(members.size());
		for (Member m : members) {
			stored.add(new Member(m.nodeId(), m.incarnation(), m.address(), millisOrNull(m.startedAt()),
					millisOrNull(m.lastHeartbeat()), m.groups(), m.live()));
		}
		return stored;
	}

	private static Instant millisOrNull(Instant instant) {
		return (instant != null) ? millis(instant) : null;
	}

	@Override
	public synchronized List<NodeRecord> findNodes() {
		return new ArrayList<>(this.nodes.values());
	}

	@Override
	public synchronized void removeNode(String nodeId, String incarnation) {
		NodeRecord node = this.nodes.get(nodeId);
		if (node != null && node.incarnation().equals(incarnation)) {
			this.nodes.remove(nodeId);
		}
	}

	@Override
	public synchronized long removeNodesNotSeenSince(Instant cutoff) {
		Instant before = millis(cutoff);
		int size = this.nodes.size();
		this.nodes.values().removeIf((node) -> node.updatedAt().isBefore(before));
		return size - this.nodes.size();
	}

}
