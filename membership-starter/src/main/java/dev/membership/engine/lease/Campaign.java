package dev.membership.engine.lease;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.clock.ClockSamples;
import dev.membership.engine.election.GroupElection;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.placement.Assignments;
import dev.membership.leadership.LeaderInfo;
import dev.membership.liveness.Member;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.LeaseStore;

/**
 * A group's lease from this node's side: when to try for it (now, at the exact instant
 * the known leader's lease can have expired, or after a hold-off), what an attempt's
 * answer means, its renewals while this node leads, and what the leases read tell of
 * other leaders. A won lease starts a term whose deadline is counted from when the
 * request was sent, so that the belief ends, by the local clock, before the lease can
 * expire in the database; {@link Renewals} keeps it. Confined to the loop.
 */
public final class Campaign {

	private static final Logger log = LoggerFactory.getLogger(Campaign.class);

	private static final long MIN_RETRY_NANOS = 2_000_000;

	/** As the acquisition's "expired before": matches only a released lease (or none). */
	private static final Instant ONLY_RELEASED = LeaseRecord.RELEASED.plusMillis(1);

	private final MembershipSettings settings;

	private final LeaseStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final ElectionMetrics metrics;

	private final ThisNode self;

	private final Heartbeats heartbeats;

	private final LeaseReleases farewell;

	private final Lifecycle lifecycle;

	private final Assignments assignments;

	private final Supplier<List<Member>> members;

	/** The marks of the scheduled fires of a unit, which a term inherits. */
	private final LeaseMarks fires;

	public Campaign(MembershipSettings settings, LeaseStore store, NodeLoop loop, ClockSamples samples,
			ElectionMetrics metrics, ThisNode self, Heartbeats heartbeats, LeaseReleases farewell, Lifecycle lifecycle,
			Assignments assignments, Supplier<List<Member>> members, LeaseMarks fires) {
		this.fires = fires;
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.metrics = metrics;
		this.self = self;
		this.heartbeats = heartbeats;
		this.farewell = farewell;
		this.lifecycle = lifecycle;
		this.assignments = assignments;
		this.members = members;
	}

	/**
	 * Tries for the lease of {@code group} now, or schedules the attempt for when it can
	 * succeed. {@code released}: the known leader's lease was just released, so do not
	 * wait for it to expire.
	 */
	public void compete(LoopJob job, GroupElection group, boolean released) {
		compete(job, group, released, null, null);
	}

	/**
	 * As {@link #compete(LoopJob, GroupElection, boolean)}; {@code releasedBy} and
	 * {@code successor}: who let go, and to whom, when the notice said so.
	 */
	private void compete(LoopJob job, GroupElection group, boolean released, @Nullable String releasedBy,
			@Nullable String successor) {
		GroupElection.State state = group.state();
		if (!this.lifecycle.competes()
				|| (state != GroupElection.State.FOLLOWING && state != GroupElection.State.HOLDING_OFF)
				|| !this.assignments.mayCompete(group.unit(), released, releasedBy, successor, this.members.get())) {
			job.next();
			return;
		}
		long now = this.loop.clock().nanoTime();
		Long holdOffUntil = group.holdOffUntil(now);
		if (holdOffUntil != null) {
			scheduleAttempt(group, holdOffUntil);
			job.next();
			return;
		}
		LeaderInfo known = group.leader().knownOther();
		if (!released && known != null && known.leaseExpiresAt().isAfter(this.loop.serverClock().lowerBoundAt(now))) {
			// fast succession: try exactly when this lease can have expired, not at some
			// later tick
			scheduleAttempt(group, latest(this.loop.serverClock().monotonicWhenPassed(known.leaseExpiresAt()),
					this.samples.trustsExpiriesFrom()));
			job.next();
			return;
		}
		// a notice that the lease was let go only brings the attempt forward: the store
		// decides, on what it holds (never a take-over on the notice's word)
		tryAcquire(job, group);
	}

	/** Tries for the lease: free in the store, or expired by the database's clock. */
	private void tryAcquire(LoopJob job, GroupElection group) {
		long sent = this.loop.clock().nanoTime();
		Instant certainlyPassed = this.loop.serverClock().lowerBoundAt(sent);
		// a node new to the database's clock takes no lease that another node may still
		// believe in (ClockSamples)
		Instant expiredBefore = this.samples.trustsExpiries(sent) ? certainlyPassed : ONLY_RELEASED;
		Instant expiresAt = this.loop.serverClock().upperBoundAt(sent).plus(this.settings.leaseDuration());
		Holder holder = this.self.holder();
		this.loop.call(job, () -> this.store.tryAcquire(group.name(), holder, expiredBefore, expiresAt),
				(Optional<LeaseRecord> won, long sentNanos, long received) -> {
					this.metrics.acquisition(group.unit().group(),
							won.isPresent() ? ElectionMetrics.AcquisitionOutcome.ACQUIRED
									: ElectionMetrics.AcquisitionOutcome.CONFLICT);
					if (won.isEmpty()) {
						job.now((j) -> findLeader(j, group, certainlyPassed));
					}
					else if (!this.samples.take(sentNanos, received, won.get().acquiredAt())) {
						declined(group, won.get().epoch(), received);
					}
					else if (!begin(group, won.get(), Renewals.deadline(this.settings, sent), expiresAt, holder)) {
						// answered after this node began to stop: a term now would escape
						// the drain, so none begins, and the lease goes back at once
						this.loop.submit(this.farewell.release(group, won.get().epoch(), null));
					}
				}, (ex) -> {
					this.metrics.acquisition(group.unit().group(), ElectionMetrics.AcquisitionOutcome.ERROR);
					return false;
				});
	}

	/**
	 * Begins the term of a lease just won, unless the node began to stop meanwhile: under
	 * the lifecycle's lock, so that a stop's drain, which runs after the lifecycle moved
	 * on, either sees the term or the term never begins. Followers learn of it from the
	 * lease, which they read every interval.
	 */
	private boolean begin(GroupElection group, LeaseRecord won, long deadlineNanos, Instant expiresAt, Holder holder) {
		synchronized (this.lifecycle) {
			if (!this.lifecycle.competes()) {
				return false;
			}
			if (group.acquired(won, deadlineNanos, expiresAt, holder.address())) {
				// the record of the fires travels with the term
				this.fires.termBegan(group, group.term(), won.fires());
			}
			return true;
		}
	}

	/**
	 * A lease judged in the database's previous clock: a belief held in the new one may
	 * rest on the lease this write took over, and ends within a lease by its holder's own
	 * deadline. So no term begins here, this node stays out of the race and keeps the
	 * lease until then, and then releases it, so that the group is not held up for as
	 * long as the jump too (the lease's expiry was written in the previous clock).
	 */
	private void declined(GroupElection group, long epoch, long receivedNanos) {
		log.warn("Node {} acquired the lease of group '{}' (epoch {}) under the database's previous clock and does not "
				+ "lead under it", this.self.nodeId(), group.name(), epoch);
		long lease = this.settings.leaseDuration().toNanos();
		group.holdOff(receivedNanos + lease);
		this.loop.schedule(() -> this.farewell.release(group, epoch, null), lease);
	}

	/**
	 * After a lost attempt: learns the holder from the lease and tries again when it can
	 * have expired.
	 */
	private void findLeader(LoopJob job, GroupElection group, Instant certainlyPassed) {
		this.loop.call(job, () -> this.store.findLease(group.name()), (lease, sent, received) -> {
			if (lease.isEmpty() || lease.get().expiresAt() == null) {
				return;
			}
			LeaseRecord held = lease.get();
			Holder by = held.holder();
			Instant expires = held.expiresAt();
			if (by != null && expires.isAfter(certainlyPassed)) {
				group.leader().learn(new LeaderInfo(group.name(), by.nodeId(), by.address(), held.epoch(), expires));
			}
			// also when it looks expired already: someone may have just taken it, or we
			// were on the boundary. Not sooner than a round trip: a majority read shows
			// the winner's write only once a majority has it, and until then a loser that
			// retried every few milliseconds would read the old lease again and again
			long backOff = Math.max(MIN_RETRY_NANOS, received - sent);
			scheduleAttempt(group, latest(latest(this.loop.serverClock().monotonicWhenPassed(expires),
					this.loop.clock().nanoTime() + backOff), this.samples.trustsExpiriesFrom()));
		}, (ex) -> false);
	}

	/**
	 * What the leases just read tell: the known leader of every group this node does not
	 * lead.
	 */
	public void learn(Map<String, LeaseRecord> leases, Instant certainlyPassed) {
		for (LeaseRecord lease : leases.values()) {
			Holder holder = lease.holder();
			if (holder != null && holder.nodeId().equals(this.self.nodeId())) {
				this.heartbeats.writtenBy(holder.incarnation(), lease.renewedAt());
			}
		}
		for (GroupElection group : this.self.groups()) {
			if (!group.isLeader()) { // this node knows best
				group.leader().updateFromLease(leases.get(group.name()), certainlyPassed);
			}
		}
	}

	/**
	 * Advisory news that the lease of {@code group} held with {@code releasedEpoch} by
	 * {@code holder} (null: not said) was just released.
	 */
	LoopJob released(GroupElection group, long releasedEpoch, @Nullable String holder, @Nullable String successor) {
		LoopJob job = new LoopJob("attempt on group " + group.name(),
				(ex) -> log.warn("Membership attempt on group {} failed: {}", group.name(), ex.getMessage()));
		return job.then((j) -> {
			LeaderInfo known = group.leader().known();
			if (group.isLeader() || (known != null && known.epoch() > releasedEpoch)) {
				j.next(); // late: a newer leader is known already
				return;
			}
			compete(j, group, true, holder, successor);
		});
	}

	/**
	 * Advisory news of another node's election: remembered when it is news. Never makes
	 * this node leader.
	 */
	LoopJob elected(GroupElection group, LeaderInfo leader) {
		return LoopJob.of("leader news for group " + group.name(), () -> {
			if (!group.isLeader()) {
				// no later than a lease taken now could run
				Instant latest = this.loop.serverClock()
					.upperBoundAt(this.loop.clock().nanoTime())
					.plus(this.settings.leaseDuration());
				group.leader().learnFromNotice(leader, latest);
			}
		});
	}

	private static long latest(long aNanos, long bNanos) {
		return (aNanos - bNanos >= 0) ? aNanos : bNanos;
	}

	private void scheduleAttempt(GroupElection group, long atNanos) {
		long delay = Math.max(0, atNanos - this.loop.clock().nanoTime());
		group.attemptLater(() -> this.loop.schedule(() -> attempt(group), delay));
	}

	private LoopJob attempt(GroupElection group) {
		LoopJob job = new LoopJob("attempt on group " + group.name(),
				(ex) -> log.debug("Leadership attempt for group {} failed: {}", group.name(), ex.getMessage()));
		return job.then((j) -> compete(j, group, false));
	}

}
