package dev.membership.simulation;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.test.InMemoryMembershipStore;

/**
 * The simulation's database: the test kit's {@link InMemoryMembershipStore} (the store users' tests run on, which
 * passes the MongoDB stores' contract) on the simulated server's clock, noting every lease write for the trace of a
 * failed run, and broken on purpose when a variant asks, to show that the simulator catches it. The simulation is
 * single-threaded, so a defect's read-then-write is as atomic as the store's own operations.
 */
final class DefectiveStore implements MembershipStore {

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
		ACQUISITION_NOT_STAMPED,

		/**
		 * A take-over on a notice matches any term of the node that let go, not just the one it let go of: a late or
		 * repeated notice takes a lease its sender holds again.
		 */
		TAKE_OVER_ANY_TERM_OF_THE_SENDER

	}

	/** Past any expiry: what an acquisition that ignores the expiry filter passes as "expired before". */
	private static final Instant ANY_EXPIRY = Instant.parse("9999-01-01T00:00:00Z");

	private final InMemoryMembershipStore store;

	private final Defect defect;

	private final Consumer<Supplier<String>> trace;

	DefectiveStore(Supplier<Instant> serverClock, Defect defect, Consumer<Supplier<String>> trace) {
		this.store = new InMemoryMembershipStore(new SuppliedClock(serverClock));
		this.defect = defect;
		this.trace = trace;
	}

	@Override
	public void initialize() {
		this.store.initialize();
	}

	@Override
	public Optional<Instant> serverTime() {
		return this.store.serverTime();
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		boolean ownLease = this.store.findLease(group).filter((lease) -> lease.isHeldBy(holder)).isPresent();
		Instant before = (this.defect == Defect.LATE_ACQUISITION_STARTS_A_TERM && ownLease) ? ANY_EXPIRY
				: expiredBefore;
		Optional<LeaseRecord> taken = this.store.tryAcquire(group, holder, before, expiresAt);
		taken.ifPresent((lease) -> this.trace.accept(() -> "store: " + holder.nodeId() + " acquired " + group
				+ " epoch " + lease.epoch() + " until " + lease.expiresAt()));
		if (this.defect == Defect.ACQUISITION_NOT_STAMPED) {
			return taken.map((lease) -> new LeaseRecord(group, holder, lease.epoch(), lease.expiresAt(), null, null));
		}
		return taken;
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		long term = epoch;
		if (this.defect == Defect.TAKE_OVER_ANY_TERM_OF_THE_SENDER) {
			term = this.store.findLease(group)
				.filter((lease) -> lease.holder() != null && lease.holder().nodeId().equals(from))
				.map(LeaseRecord::epoch)
				.orElse(epoch);
		}
		Optional<LeaseRecord> taken = this.store.tryTakeOver(group, holder, from, term, expiredBefore, expiresAt);
		taken.ifPresent((lease) -> this.trace.accept(() -> "store: " + holder.nodeId() + " took " + group
				+ " over from " + from + " (let go of epoch " + epoch + ") at epoch " + lease.epoch() + " until "
				+ lease.expiresAt()));
		if (this.defect == Defect.ACQUISITION_NOT_STAMPED) {
			return taken.map((lease) -> new LeaseRecord(group, holder, lease.epoch(), lease.expiresAt(), null, null));
		}
		return taken;
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt) {
		Optional<Instant> renewed = this.store.renew(group, holder, epoch, expiresAt);
		if (renewed.isPresent() && this.defect == Defect.LATE_RENEWAL_SHORTENS_THE_LEASE) {
			this.store.setLeaseExpiry(group, expiresAt);
		}
		renewed.ifPresent((at) -> this.trace.accept(() -> "store: " + holder.nodeId() + " renewed " + group + " epoch "
				+ epoch + " until " + this.store.findLease(group).map(LeaseRecord::expiresAt).orElse(null)));
		return renewed;
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt) {
		long renewed = this.store.renewAll(holder, epochs, expiresAt);
		for (Map.Entry<String, Long> lease : epochs.entrySet()) {
			LeaseRecord now = this.store.findLease(lease.getKey()).orElse(null);
			boolean held = now != null && now.isHeldBy(holder) && now.epoch() == lease.getValue()
					&& now.expiresAt() != null && now.expiresAt().isAfter(LeaseRecord.RELEASED);
			if (held && this.defect == Defect.LATE_RENEWAL_SHORTENS_THE_LEASE) {
				this.store.setLeaseExpiry(lease.getKey(), expiresAt);
			}
			if (held) {
				this.trace.accept(() -> "store: " + holder.nodeId() + " renewed " + lease.getKey() + " epoch "
						+ lease.getValue() + " until " + this.store.findLease(lease.getKey())
							.map(LeaseRecord::expiresAt)
							.orElse(null));
			}
		}
		return renewed;
	}

	@Override
	public boolean release(String group, Holder holder, long epoch) {
		boolean released = this.store.release(group, holder, epoch);
		if (released) {
			this.trace.accept(() -> "store: " + holder.nodeId() + " released " + group + " epoch " + epoch);
		}
		return released;
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		return this.store.findLease(group);
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		return this.store.findLeases(groups, rosterVersion);
	}

	@Override
	public Optional<Roster> findRoster() {
		return this.store.findRoster();
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		return this.store.writeRoster(members, changes, assignments, keeperNodeId, epoch, sequence);
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		return this.store.heartbeat(node);
	}

	@Override
	public List<NodeRecord> findNodes() {
		return this.store.findNodes();
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		this.store.removeNode(nodeId, incarnation);
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return this.store.removeNodesNotSeenSince(cutoff);
	}

	/** The simulated server's clock (which may jump), as the clock the in-memory store reads. */
	private static final class SuppliedClock extends Clock {

		private final Supplier<Instant> now;

		SuppliedClock(Supplier<Instant> now) {
			this.now = now;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			throw new UnsupportedOperationException("The simulated server's clock is UTC");
		}

		@Override
		public Instant instant() {
			return this.now.get();
		}

	}

}
