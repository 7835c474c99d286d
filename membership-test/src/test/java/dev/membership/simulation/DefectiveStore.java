package dev.membership.simulation;

import java.time.Clock;
import java.time.Duration;
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
import dev.membership.test.InMemoryMembershipStore;

/**
 * The simulation's database: the test kit's {@link InMemoryMembershipStore} (the store
 * users' tests run on, which passes the MongoDB stores' contract) on the simulated
 * server's clock, noting every lease write for the trace of a failed run, and broken on
 * purpose when a variant asks, to show that the simulator catches it. The simulation is
 * single-threaded, so a defect's read-then-write is as atomic as the store's own
 * operations.
 */
final class DefectiveStore implements MembershipStore {

	/** Deliberate bugs, for the proof that the simulator can fail. */
	enum Defect {

		NONE,

		/**
		 * Not the store's: the job's runner takes a fire now and then and never runs it
		 * nor says so, as the strict fire's failed record once did: the job waits for it.
		 */
		RUNNER_LOSES_FIRES,

		/**
		 * The holder may take its own lease whatever its expiry (the filter before the
		 * simulator found this): an acquisition that reaches the store late starts a term
		 * its holder does not know of.
		 */
		LATE_ACQUISITION_STARTS_A_TERM,

		/**
		 * Renew sets the expiry instead of only moving it forward: a renewal that reaches
		 * the store late shortens it.
		 */
		LATE_RENEWAL_SHORTENS_THE_LEASE,

		/**
		 * An acquisition does not return the store's stamp, so its acquirer cannot see
		 * that it judged the lease in the database's previous clock (a jump between its
		 * last sample and the write).
		 */
		ACQUISITION_NOT_STAMPED,

		/**
		 * A primary's step-down fails writes without saying that a reissue may get
		 * through: the node does not reissue the renewal of its partitions, and the
		 * interval's renewal is lost.
		 */
		STEP_DOWN_FAILURES_NOT_RETRYABLE,

		/**
		 * Behind a mongos, the store answers with the router's clock ({@code hello}'s
		 * {@code localTime}), which is not the clock that stamps the writes.
		 */
		HELLO_BEHIND_MONGOS,

		/**
		 * The roster's recent changes come back saying that they moved no partition: a
		 * member that catches up by them keeps the placements it had.
		 */
		PLACEMENT_CHANGES_LOST,

		/**
		 * A release leaves the lease's record of the scheduled jobs' fires as the last
		 * renewal wrote it: a fire that ended since is not passed on to the next term.
		 */
		RELEASE_DROPS_FIRES,

		/**
		 * An acquisition comes back without the lease's record of the fires: the new term
		 * catches nothing up.
		 */
		ACQUISITION_DROPS_FIRES

	}

	/**
	 * Past any expiry: what an acquisition that ignores the expiry filter passes as
	 * "expired before".
	 */
	private static final Instant ANY_EXPIRY = Instant.parse("9999-01-01T00:00:00Z");

	private final InMemoryMembershipStore store;

	private final Defect defect;

	private final Consumer<Supplier<String>> trace;

	Defect defect() {
		return this.defect;
	}

	DefectiveStore(Supplier<Instant> serverClock, Defect defect, Consumer<Supplier<String>> trace) {
		this.store = new InMemoryMembershipStore(new SuppliedClock(serverClock));
		this.defect = defect;
		this.trace = trace;
	}

	@Override
	public void initialize() {
		this.store.initialize();
	}

	/**
	 * Whether a node's call arriving now meets a primary's step-down, and whether its
	 * failures say "retryable".
	 */
	private java.util.function.BooleanSupplier steppingDown = () -> false;

	private boolean stepDownRetryable = true;

	/** Whether a write that fails in a step-down applied first. */
	private java.util.function.BooleanSupplier appliedFirst = () -> false;

	void stepDowns(java.util.function.BooleanSupplier meets, boolean retryable,
			java.util.function.BooleanSupplier applied) {
		this.steppingDown = meets;
		this.stepDownRetryable = retryable;
		this.appliedFirst = applied;
	}

	/**
	 * A multi-lease write in flight when the primary steps down: it fails, some after it
	 * applied (drivers never retry it); what the node reissues waits for the new primary.
	 * Single-document writes the driver retries, so they land.
	 */
	private <T> T multiLeaseWrite(Supplier<T> write) {
		if (!this.steppingDown.getAsBoolean()) {
			return write.get();
		}
		if (this.appliedFirst.getAsBoolean()) {
			write.get();
		}
		throw new dev.membership.spi.StoreException("simulated: the primary stepped down", null,
				this.stepDownRetryable);
	}

	/**
	 * A read while the primary steps down fails (the node does not retry it; the next
	 * interval reads again).
	 */
	private void readable() {
		if (this.steppingDown.getAsBoolean()) {
			throw new dev.membership.spi.StoreException("simulated: no primary to read from", null, true);
		}
	}

	/**
	 * Behind a mongos whose clock is {@code skew} off the stamps' (null: not behind one).
	 */
	private Duration mongosSkew;

	/** Where a violation of the roster's invariants goes. */
	private Consumer<String> violations = (violation) -> {
	};

	/** The keeper of each roster epoch, and the last version written. */
	private final Map<Long, String> keepers = new java.util.HashMap<>();

	private long rosterVersion;

	void behindMongos(Duration skew) {
		this.mongosSkew = skew;
	}

	void reportViolationsTo(Consumer<String> violations) {
		this.violations = violations;
	}

	/**
	 * The store's time without a write: none behind a mongos (what the MongoDB stores
	 * answer there), or the router's skewed clock for the broken variant.
	 */
	@Override
	public Optional<Instant> serverTime() {
		Duration skew = this.mongosSkew;
		if (skew == null) {
			return this.store.serverTime();
		}
		return (this.defect == Defect.HELLO_BEHIND_MONGOS) ? this.store.serverTime().map((now) -> now.plus(skew))
				: Optional.empty();
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		boolean ownLease = this.store.findLease(group).filter((lease) -> lease.isHeldBy(holder)).isPresent();
		Instant before = (this.defect == Defect.LATE_ACQUISITION_STARTS_A_TERM && ownLease) ? ANY_EXPIRY
				: expiredBefore;
		Optional<LeaseRecord> taken = this.store.tryAcquire(group, holder, before, expiresAt);
		taken.ifPresent((lease) -> this.trace.accept(() -> "store: " + holder.nodeId() + " acquired " + group
				+ " epoch " + lease.epoch() + " until " + lease.expiresAt()));
		return defective(taken);
	}

	/** What an acquisition returns with the defects that change it. */
	private Optional<LeaseRecord> defective(Optional<LeaseRecord> taken) {
		return taken.map((lease) -> switch (this.defect) {
			case ACQUISITION_NOT_STAMPED -> new LeaseRecord(lease.group(), lease.holder(), lease.epoch(),
					lease.expiresAt(), null, null, lease.fires());
			case ACQUISITION_DROPS_FIRES -> new LeaseRecord(lease.group(), lease.holder(), lease.epoch(),
					lease.expiresAt(), lease.acquiredAt(), lease.renewedAt(), List.of());
			default -> lease;
		});
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		Optional<LeaseRecord> taken = this.store.tryTakeOver(group, holder, from, epoch, expiredBefore, expiresAt);
		taken.ifPresent((lease) -> this.trace
			.accept(() -> "store: " + holder.nodeId() + " took " + group + " over from " + from + " (let go of epoch "
					+ epoch + ") at epoch " + lease.epoch() + " until " + lease.expiresAt()));
		return defective(taken);
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		Optional<Instant> renewed = this.store.renew(group, holder, epoch, expiresAt, fires);
		if (renewed.isPresent() && this.defect == Defect.LATE_RENEWAL_SHORTENS_THE_LEASE) {
			this.store.setLeaseExpiry(group, expiresAt);
		}
		renewed.ifPresent((at) -> this.trace.accept(() -> "store: " + holder.nodeId() + " renewed " + group + " epoch "
				+ epoch + " until " + this.store.findLease(group).map(LeaseRecord::expiresAt).orElse(null)));
		return renewed;
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		long renewed = multiLeaseWrite(() -> this.store.renewAll(holder, epochs, expiresAt, fires));
		for (Map.Entry<String, Long> lease : epochs.entrySet()) {
			LeaseRecord now = this.store.findLease(lease.getKey()).orElse(null);
			boolean held = now != null && now.isHeldBy(holder) && now.epoch() == lease.getValue()
					&& now.expiresAt() != null && now.expiresAt().isAfter(LeaseRecord.RELEASED);
			if (held && this.defect == Defect.LATE_RENEWAL_SHORTENS_THE_LEASE) {
				this.store.setLeaseExpiry(lease.getKey(), expiresAt);
			}
			if (held) {
				this.trace.accept(() -> "store: " + holder.nodeId() + " renewed " + lease.getKey() + " epoch "
						+ lease.getValue() + " until "
						+ this.store.findLease(lease.getKey()).map(LeaseRecord::expiresAt).orElse(null));
			}
		}
		return renewed;
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		boolean released = this.store.release(group, holder, epoch,
				(this.defect == Defect.RELEASE_DROPS_FIRES) ? null : fires);
		if (released) {
			this.trace.accept(() -> "store: " + holder.nodeId() + " released " + group + " epoch " + epoch);
		}
		return released;
	}

	/** The lease as stored, for the checks: no fault, no defect. */
	@Nullable LeaseRecord leaseAsStored(String group) {
		return this.store.findLease(group).orElse(null);
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		readable();
		return this.store.findLease(group);
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		readable();
		LeaseReading reading = this.store.findLeases(groups, rosterVersion);
		Roster roster = reading.roster();
		if (this.defect != Defect.PLACEMENT_CHANGES_LOST || roster == null) {
			return reading;
		}
		List<RosterChange> lost = roster.changes()
			.stream()
			.map((c) -> new RosterChange(c.fromVersion(), c.upserted(), c.removed(), List.of()))
			.toList();
		return new LeaseReading(reading.leases(), new Roster(roster.version(), roster.keeperNodeId(), roster.epoch(),
				roster.writtenAt(), roster.members(), lost, roster.assignments()));
	}

	@Override
	public Optional<Roster> findRoster() {
		readable();
		return this.store.findRoster();
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		OptionalLong written = this.store.writeRoster(members, changes, assignments, keeperNodeId, epoch, sequence);
		if (written.isPresent()) {
			String keeper = this.keepers.putIfAbsent(epoch, keeperNodeId);
			if (keeper != null && !keeper.equals(keeperNodeId)) {
				this.violations.accept(Invariant.ONE_KEEPER_PER_ROSTER_EPOCH.violation(
						keeperNodeId + " wrote the roster under epoch " + epoch + ", which " + keeper + " kept"));
			}
			if (written.getAsLong() <= this.rosterVersion) {
				this.violations.accept(Invariant.ROSTER_VERSION_RISES
					.violation("the roster went from version " + this.rosterVersion + " to " + written.getAsLong()));
			}
			this.rosterVersion = Math.max(this.rosterVersion, written.getAsLong());
		}
		return written;
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		return this.store.heartbeat(node);
	}

	@Override
	public List<NodeRecord> findNodes() {
		readable();
		return this.store.findNodes();
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		this.store.removeNode(nodeId, incarnation);
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return multiLeaseWrite(() -> this.store.removeNodesNotSeenSince(cutoff));
	}

	@Override
	public long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		Map<String, List<FireMark>> passed = (this.defect == Defect.RELEASE_DROPS_FIRES) ? Map.of() : fires;
		long released = multiLeaseWrite(() -> this.store.releaseAll(holder, epochs, passed));
		this.trace.accept(() -> "store: " + holder.nodeId() + " released " + released + " of " + epochs.keySet());
		return released;
	}

	/**
	 * The simulated server's clock (which may jump), as the clock the in-memory store
	 * reads.
	 */
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
