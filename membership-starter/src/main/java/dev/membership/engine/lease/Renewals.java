package dev.membership.engine.lease;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.clock.ClockSamples;
import dev.membership.engine.election.GroupElection;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.term.Term;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.FireMark;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.LeaseStore;
import dev.membership.spi.StoreException;

/**
 * The renewal of what this node holds, plain groups and partitions alike, as one
 * procedure:
 * <ol>
 * <li>What it renews: each unit whose term is valid ({@link #holding}).</li>
 * <li>What rides on it: the marks of the unit's scheduled fires that changed since the
 * last write, as their owner hands them in ({@link LeaseMarks#toRenew}).</li>
 * <li>The write, by the database's clock, expiring a lease from the upper bound of its
 * time at the send: one call per interval for everything ({@link LeaseStore#renewAll}) on
 * a node with partitioned groups, else one per group ({@link LeaseStore#renew}, as a
 * strict fire's renewal of its own unit is).</li>
 * <li>The confirmation, one rule ({@link #confirm}): a lease read back held by this node
 * under the term's epoch, not released, with this write's expiry, was renewed; one read
 * back otherwise ends the term ({@code LEASE_LOST}); a lease with another expiry was not
 * this write's, and its deadline stays. The term's deadline moves (from the send) only
 * when the read-back's stamp is a sample of the database's clock without a jump. The
 * read-back of a single renewal is its own reply; a batch's is the interval's read, whose
 * stamp may be a later renewal's, so no renewal of the lease alone may have landed since
 * and no other reply may have shown a jump meanwhile.</li>
 * </ol>
 * No answer is no confirmation: the deadlines stay, and the next interval tries again.
 * Confined to the loop.
 */
public final class Renewals {

	private final MembershipSettings settings;

	private final LeaseStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final ElectionMetrics metrics;

	private final ThisNode self;

	private final Heartbeats heartbeats;

	private final LeaseMarks marks;

	/** Whether this node renews in one call per interval, confirmed by its read. */
	private final boolean batches;

	/** The batch of this interval, until the read confirms it. */
	private @Nullable Sent pending;

	public Renewals(MembershipSettings settings, LeaseStore store, NodeLoop loop, ClockSamples samples,
			ElectionMetrics metrics, ThisNode self, Heartbeats heartbeats, LeaseMarks marks) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.metrics = metrics;
		this.self = self;
		this.heartbeats = heartbeats;
		this.marks = marks;
		this.batches = !settings.partitions().isEmpty();
	}

	/**
	 * The local deadline of a lease requested at {@code sentNanos}: its duration less the
	 * safety margin, so that the belief ends before the lease can expire in the database.
	 */
	static long deadline(MembershipSettings settings, long sentNanos) {
		return sentNanos + settings.leaseDuration().toNanos() - settings.safetyMargin().toNanos();
	}

	/** The interval's renewal of everything this node holds. */
	public void renew(LoopJob job) {
		this.pending = null;
		Map<GroupElection, Term> held = holding(null);
		if (this.batches) {
			renewAll(job, held, true);
			return;
		}
		// in order, each its own step
		List<GroupElection> units = List.copyOf(held.keySet());
		for (int i = units.size() - 1; i >= 0; i--) {
			GroupElection unit = units.get(i);
			job.now((j) -> renewAlone(j, unit));
		}
		job.next();
	}

	/**
	 * The renewal of {@code unit}'s lease alone, now: a strict fire's, whose mark must
	 * land before its run.
	 */
	public void renewAlone(LoopJob job, GroupElection unit) {
		Sent sent = send(holding(unit));
		if (sent == null) {
			job.next();
			return;
		}
		unit.renewingAlone(sent.sentNanos());
		Term term = sent.held().get(unit);
		this.loop.call(job,
				() -> this.store.renew(unit.name(), this.self.holder(), term.epoch(), sent.expiresAt(),
						sent.marks().get(unit.name())),
				(renewedAt, sentNanos, received) -> confirm(sent.answered(received), readBack(sent, unit, renewedAt),
						true),
				(ex) -> {
					unit.renewalAloneFailed(sent.sentNanos());
					this.metrics.renewal(unit.unit().group(), ElectionMetrics.RenewalOutcome.ERROR);
					return false;
				});
	}

	/**
	 * {@code mayReissue}: on a retryable failure (a primary's step-down: drivers do not
	 * retry multi-document writes), renew once more at once, as a renewal of its own (its
	 * send time and expiry), which is safe to apply twice.
	 */
	private void renewAll(LoopJob job, Map<GroupElection, Term> held, boolean mayReissue) {
		Sent sent = send(held);
		if (sent == null) {
			job.next();
			return;
		}
		Map<String, Long> epochs = new LinkedHashMap<>();
		held.forEach((unit, term) -> epochs.put(unit.name(), term.epoch()));
		this.loop.call(job, () -> this.store.renewAll(this.self.holder(), epochs, sent.expiresAt(), sent.marks()),
				(renewed, sentNanos, received) -> this.pending = sent.answered(received), (ex) -> {
					if (mayReissue && StoreException.isRetryable(ex)) {
						job.now((again) -> renewAll(again, holding(null), false));
						return true;
					}
					held.keySet()
						.forEach((unit) -> this.metrics.renewal(unit.unit().group(),
								ElectionMetrics.RenewalOutcome.ERROR));
					return true; // the tick goes on: the deadlines stay where they are
				});
	}

	/** The lease names the interval's read must bring back. */
	public Set<String> toConfirm() {
		Sent p = this.pending;
		return (p != null) ? p.names() : Set.of();
	}

	/** The interval's read: confirms the batch sent before it. */
	void confirm(Map<String, LeaseRecord> leases) {
		Sent p = this.pending;
		this.pending = null;
		if (p != null) {
			confirm(p, leases, false);
		}
	}

	/**
	 * The one rule. {@code ownReply}: {@code leases} is the write's own reply, its stamp
	 * the write's.
	 */
	private void confirm(Sent p, Map<String, LeaseRecord> leases, boolean ownReply) {
		Holder holder = this.self.holder();
		Boolean trusted = null;
		Map<GroupElection, Term> applied = new LinkedHashMap<>();
		for (Map.Entry<GroupElection, Term> owned : p.held().entrySet()) {
			GroupElection unit = owned.getKey();
			Term term = owned.getValue();
			LeaseRecord lease = leases.get(unit.name());
			boolean held = lease != null && lease.isHeldBy(holder) && lease.epoch() == term.epoch()
					&& lease.expiresAt() != null && lease.expiresAt().isAfter(LeaseRecord.RELEASED);
			if (!held) {
				this.metrics.renewal(unit.unit().group(), ElectionMetrics.RenewalOutcome.LOST);
				unit.lost(term);
				continue;
			}
			if (!lease.expiresAt()
				.truncatedTo(ChronoUnit.MILLIS)
				.equals(p.expiresAt().truncatedTo(ChronoUnit.MILLIS))) {
				// not this write's expiry, so not its stamp either: it did not apply, the
				// deadline stays
				continue;
			}
			if (trusted == null && lease.renewedAt() != null && (ownReply
					|| !unit.mayHaveRenewedAloneAfter(p.sentNanos(), this.settings.leaseDuration().toNanos()))) {
				// read later, a stamp of this write only when no renewal of this lease
				// alone (a strict fire's) may have landed after it, and no other reply
				// since the send (a heartbeat's, say) showed a jump: the write's expiry
				// was in the old clock then, whatever this sample says
				trusted = this.samples.take(p.sentNanos(), p.receivedNanos(), lease.renewedAt())
						&& (ownReply || this.samples.jumps() == p.jumpsAtSend());
			}
			if (!unit.unit().isPartition()) {
				// a group's lease keeps this node live; a partition's does not
				this.heartbeats.renewed(p.sentNanos());
			}
			Long version = p.versions().get(unit.name());
			if (version != null) {
				this.marks.written(unit.name(), version); // its marks rode this write
			}
			this.metrics.renewal(unit.unit().group(), ElectionMetrics.RenewalOutcome.RENEWED);
			applied.put(unit, term);
		}
		if (Boolean.TRUE.equals(trusted)) {
			// one write, one clock: any of its stamps confirms them all
			applied.forEach((unit, term) -> unit.renewed(term, deadline(this.settings, p.sentNanos()), p.expiresAt()));
		}
	}

	/**
	 * What this node holds: every unit with a valid term, plain groups and partitions
	 * ({@code only}: that unit alone).
	 */
	private Map<GroupElection, Term> holding(@Nullable GroupElection only) {
		Map<GroupElection, Term> held = new LinkedHashMap<>();
		for (GroupElection unit : (only != null) ? List.of(only) : this.self.groups()) {
			Term term = unit.term();
			if (term != null && term.isValid()) {
				held.put(unit, term);
			}
		}
		return held;
	}

	/** What a write of {@code held} sends, the marks that ride on it included. */
	private @Nullable Sent send(Map<GroupElection, Term> held) {
		if (held.isEmpty()) {
			return null;
		}
		Map<String, List<FireMark>> marks = new LinkedHashMap<>();
		Map<String, Long> versions = new LinkedHashMap<>();
		held.forEach((unit, term) -> {
			List<FireMark> changed = this.marks.toRenew(unit.name(), term.epoch());
			if (changed != null) { // null: none changed since the last write
				marks.put(unit.name(), changed);
				versions.put(unit.name(), this.marks.version(unit.name()));
			}
		});
		long sent = this.loop.clock().nanoTime();
		Instant expiresAt = this.loop.serverClock().upperBoundAt(sent).plus(this.settings.leaseDuration());
		return new Sent(sent, 0, expiresAt, held, this.samples.jumps(), marks, versions);
	}

	/**
	 * A single renewal's reply as the lease it left: renewed, held by this node under the
	 * term's epoch with the write's expiry and its stamp; not renewed, not held (none).
	 */
	private Map<String, LeaseRecord> readBack(Sent sent, GroupElection unit, Optional<Instant> renewedAt) {
		return renewedAt
			.map((at) -> Map.of(unit.name(), new LeaseRecord(unit.name(), this.self.holder(),
					sent.held().get(unit).epoch(), sent.expiresAt(), null, at)))
			.orElse(Map.of());
	}

	/** A write sent at {@code sentNanos}, answered at {@code receivedNanos}. */
	private record Sent(long sentNanos, long receivedNanos, Instant expiresAt, Map<GroupElection, Term> held,
			long jumpsAtSend, Map<String, List<FireMark>> marks, Map<String, Long> versions) {

		Sent answered(long receivedNanos) {
			return new Sent(this.sentNanos, receivedNanos, this.expiresAt, this.held, this.jumpsAtSend, this.marks,
					this.versions);
		}

		Set<String> names() {
			return Set.copyOf(this.held.keySet().stream().map(GroupElection::name).toList());
		}

	}

}
