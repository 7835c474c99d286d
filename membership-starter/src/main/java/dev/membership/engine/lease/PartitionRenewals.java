package dev.membership.engine.lease;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import dev.membership.spi.MembershipStore;
import dev.membership.spi.StoreException;

/**
 * The renewal of every partition this node owns, in one store call per interval
 * ({@link MembershipStore#renewAll}), with the leases of the plain groups it leads when
 * it has partitioned groups (so a node's renewals are one call whatever it holds; a node
 * without partitioned groups renews each group on its own, {@link Campaign#renew}), a
 * plain group's with the fires of its scheduled jobs when they changed
 * ({@link LeaseMarks}: written in the same write, and known written once the renewal is
 * confirmed), confirmed by the node's read of the same interval: a lease read back held
 * by this node under the term's epoch, and not released, was renewed, and its
 * {@code renewedAt} is the clock sample of the renewal. Only then does a term's deadline
 * move (from when the renewal was sent), and not when that sample shows a jump of the
 * database's clock, as for a group's renewal. A lease read back held by another node,
 * under another epoch, released or gone: the term ends ({@code LEASE_LOST}). No read, no
 * confirmation: the deadlines stay, and the next interval tries again. Confined to the
 * loop.
 */
public final class PartitionRenewals {

	private final MembershipSettings settings;

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final ElectionMetrics metrics;

	private final ThisNode self;

	private final Campaign campaign;

	private final Heartbeats heartbeats;

	private final LeaseMarks fires;

	/** Whether plain groups' leases are renewed here too. */
	private final boolean batchesGroups;

	/** The renewal of this interval, until the read confirms it. */
	private @Nullable Pending pending;

	public PartitionRenewals(MembershipSettings settings, MembershipStore store, NodeLoop loop, ClockSamples samples,
			ElectionMetrics metrics, ThisNode self, Campaign campaign, Heartbeats heartbeats, LeaseMarks fires) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.metrics = metrics;
		this.self = self;
		this.campaign = campaign;
		this.heartbeats = heartbeats;
		this.fires = fires;
		this.batchesGroups = !settings.partitions().isEmpty();
	}

	/**
	 * Whether this node's plain groups are renewed here, in the one call, rather than
	 * each on its own.
	 */
	public boolean renewsGroups() {
		return this.batchesGroups;
	}

	public void renew(LoopJob job) {
		renew(job, true);
	}

	/**
	 * {@code mayReissue}: on a retryable failure (a primary's step-down: drivers do not
	 * retry multi-document writes), renew once more at once, as a renewal of its own (its
	 * send time and expiry), which is safe to apply twice.
	 */
	private void renew(LoopJob job, boolean mayReissue) {
		this.pending = null;
		Map<GroupElection, Term> owned = new LinkedHashMap<>();
		Map<String, Long> epochs = new LinkedHashMap<>();
		Map<String, List<FireMark>> marks = new LinkedHashMap<>();
		Map<String, Long> versions = new LinkedHashMap<>();
		for (GroupElection unit : this.self.groups()) {
			Term term = (unit.unit().isPartition() || this.batchesGroups) ? unit.term() : null;
			if (term != null && term.isValid()) {
				owned.put(unit, term);
				epochs.put(unit.name(), term.epoch());
				List<FireMark> changed = this.fires.toRenew(unit.name(), term.epoch());
				// the fires of its jobs changed since the last write: they ride this one
				if (changed != null) {
					marks.put(unit.name(), changed);
					versions.put(unit.name(), this.fires.version(unit.name()));
				}
			}
		}
		if (owned.isEmpty()) {
			job.next();
			return;
		}
		long sent = this.loop.clock().nanoTime();
		Instant expiresAt = this.loop.serverClock().upperBoundAt(sent).plus(this.settings.leaseDuration());
		Holder holder = this.self.holder();
		long jumps = this.samples.jumps();
		this.loop.call(job, () -> this.store.renewAll(holder, epochs, expiresAt, marks),
				(renewed, sentNanos,
						received) -> this.pending = new Pending(sentNanos, received, expiresAt, owned, jumps, versions),
				(ex) -> {
					if (mayReissue && StoreException.isRetryable(ex)) {
						job.now((again) -> renew(again, false));
						return true;
					}
					owned.keySet()
						.forEach((unit) -> this.metrics.renewal(unit.unit().group(),
								ElectionMetrics.RenewalOutcome.ERROR));
					return true; // the tick goes on: the deadlines stay where they are
				});
	}

	/** The lease names the read of this interval must bring back. */
	public Set<String> toConfirm() {
		Pending p = this.pending;
		return (p != null) ? p.names() : Set.of();
	}

	/**
	 * What the read brought back: which renewals applied, and the clock sample they
	 * carry.
	 */
	void confirm(Map<String, LeaseRecord> leases) {
		Pending p = this.pending;
		this.pending = null;
		if (p == null) {
			return;
		}
		Holder holder = this.self.holder();
		Boolean trusted = null;
		Map<GroupElection, Term> applied = new LinkedHashMap<>();
		for (Map.Entry<GroupElection, Term> owned : p.owned().entrySet()) {
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
			if (!lease.expiresAt().equals(p.expiresAt().truncatedTo(ChronoUnit.MILLIS))) {
				// not this renewal's expiry, so not its stamp either: it did not apply,
				// the deadline stays
				continue;
			}
			if (trusted == null && lease.renewedAt() != null
					&& !unit.mayHaveRenewedAloneAfter(p.sentNanos(), this.settings.leaseDuration().toNanos())) {
				// a stamp of this write (no renewal of this lease alone, a strict fire's,
				// may have landed after it: that keeps the later expiry and stamps its
				// own time), and no other reply since the renewal was sent showed a jump
				// (a heartbeat's, say, taken before this read): the renewal's expiry was
				// written in the old clock then, whatever this sample says
				trusted = this.samples.take(p.sentNanos(), p.receivedNanos(), lease.renewedAt())
						&& this.samples.jumps() == p.jumpsAtSend();
			}
			if (!unit.unit().isPartition()) {
				// a group's renewal keeps this node live
				this.heartbeats.renewed(p.sentNanos());
			}
			Long version = p.fireVersions().get(unit.name());
			if (version != null) {
				// this renewal's write: its fires with it
				this.fires.written(unit.name(), version);
			}
			this.metrics.renewal(unit.unit().group(), ElectionMetrics.RenewalOutcome.RENEWED);
			applied.put(unit, term);
		}
		if (Boolean.TRUE.equals(trusted)) {
			// one write, one clock: any of its stamps confirms them all
			applied
				.forEach((unit, term) -> unit.renewed(term, this.campaign.deadlineFor(p.sentNanos()), p.expiresAt()));
		}
	}

	/**
	 * {@code fireVersions}: the fires' version each lease's write carried, by lease
	 * (none: no fires).
	 */
	private record Pending(long sentNanos, long receivedNanos, Instant expiresAt, Map<GroupElection, Term> owned,
			long jumpsAtSend, Map<String, Long> fireVersions) {

		Set<String> names() {
			return Set.copyOf(List.copyOf(this.owned.keySet()).stream().map(GroupElection::name).toList());
		}

	}

}
