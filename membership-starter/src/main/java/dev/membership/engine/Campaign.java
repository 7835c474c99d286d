package dev.membership.engine;

import dev.membership.spi.ElectionMetrics;

import java.time.Instant;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderInfo;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.engine.ServerClock;

/**
 * Competing for a group's lease: when to try (now, at the exact instant the known leader's lease can have expired, or
 * after a resign's hold-off) and what an attempt's answer means. A won lease starts a term whose deadline is counted
 * from when the request was sent, so that the belief ends, by the local clock, before the lease can expire in the
 * database.
 */
final class Campaign {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private static final long MIN_RETRY_NANOS = 2_000_000;

	/** As the acquisition's "expired before": matches only a released lease (or none). */
	private static final Instant ONLY_RELEASED = LeaseRecord.RELEASED.plusMillis(1);

	private final MembershipSettings settings;

	private final MembershipStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final ElectionMetrics metrics;

	private final Supplier<Holder> holder;

	private final Lifecycle lifecycle;

	private BiConsumer<GroupElection, Long> declined = (group, epoch) -> {
	};

	Campaign(MembershipSettings settings, MembershipStore store, NodeLoop loop, ClockSamples samples,
			ElectionMetrics metrics, Supplier<Holder> holder, Lifecycle lifecycle) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.metrics = metrics;
		this.holder = holder;
		this.lifecycle = lifecycle;
	}

	/** What becomes of a lease won under the database's previous clock, in which this node does not lead. */
	void onDeclined(BiConsumer<GroupElection, Long> declined) {
		this.declined = declined;
	}

	/** The local deadline of a lease requested at {@code sentNanos}: its duration less the safety margin. */
	long deadlineFor(long sentNanos) {
		return sentNanos + this.settings.leaseDuration().toNanos() - this.settings.safetyMargin().toNanos();
	}

	/**
	 * Tries for the lease of {@code group} now, or schedules the attempt for when it can succeed.
	 * {@code released}: the known leader's lease was just released, so do not wait for it to expire.
	 */
	void compete(LoopJob job, GroupElection group, boolean released) {
		if (!this.lifecycle.competes() || group.isLeader()) {
			job.next();
			return;
		}
		ServerClock serverClock = this.loop.serverClock();
		long now = this.loop.clock().nanoTime();
		Long holdOffUntil = group.holdOffUntil(now);
		if (holdOffUntil != null) {
			scheduleAttempt(group, holdOffUntil);
			job.next();
			return;
		}
		LeaderInfo known = group.leader().knownOther();
		if (!released && known != null && known.leaseExpiresAt().isAfter(serverClock.lowerBoundAt(now))) {
			// fast succession: try exactly when this lease can have expired, not at some later tick
			scheduleAttempt(group, latest(serverClock.monotonicWhenPassed(known.leaseExpiresAt()),
					this.samples.trustsExpiriesFrom()));
			job.next();
			return;
		}
		tryAcquire(job, group);
	}

	private void tryAcquire(LoopJob job, GroupElection group) {
		ServerClock serverClock = this.loop.serverClock();
		long sent = this.loop.clock().nanoTime();
		Instant certainlyPassed = serverClock.lowerBoundAt(sent);
		// a node new to the database's clock takes no lease that another node may still believe in (ClockSamples)
		Instant expiredBefore = this.samples.trustsExpiries(sent) ? certainlyPassed : ONLY_RELEASED;
		Instant expiresAt = serverClock.upperBoundAt(sent).plus(this.settings.leaseDuration());
		Holder self = this.holder.get();
		this.loop.call(job, () -> this.store.tryAcquire(group.name(), self, expiredBefore, expiresAt),
				(Optional<LeaseRecord> won, long sentNanos, long received) -> {
					this.metrics.acquisition(group.name(), won.isPresent() ? ElectionMetrics.AcquisitionOutcome.ACQUIRED
							: ElectionMetrics.AcquisitionOutcome.CONFLICT);
					if (won.isEmpty()) {
						job.now((j) -> findLeader(j, group, certainlyPassed));
					}
					else if (!this.samples.take(sentNanos, received, won.get().acquiredAt())) {
						// judged in the database's previous clock: a belief held in the new one may rest on the lease
						// this write took over, so none begins here
						log.warn("Node {} acquired the lease of group '{}' (epoch {}) under the database's previous "
								+ "clock and does not lead under it", self.nodeId(), group.name(), won.get().epoch());
						this.declined.accept(group, won.get().epoch());
					}
					else {
						// followers learn the new term from the lease, which they read every interval
						group.begin(won.get(), deadlineFor(sent), expiresAt, this.lifecycle::competes, self.address());
					}
				}, (ex) -> {
					this.metrics.acquisition(group.name(), ElectionMetrics.AcquisitionOutcome.ERROR);
					return false;
				});
	}

	/** After a lost attempt: learns the holder from the lease and tries again when it can have expired. */
	private void findLeader(LoopJob job, GroupElection group, Instant certainlyPassed) {
		this.loop.call(job, () -> this.store.findLease(group.name()), (lease, sent, received) -> {
			if (lease.isEmpty()) {
				return;
			}
			LeaseRecord held = lease.get();
			Holder by = held.holder();
			if (by != null && held.expiresAt() != null && held.expiresAt().isAfter(certainlyPassed)) {
				group.leader()
					.learn(new LeaderInfo(group.name(), by.nodeId(), by.address(), held.epoch(), held.expiresAt()));
			}
			// also when it looks expired already: someone may have just taken it, or we were on the boundary
			scheduleAttempt(group, latest(latest(this.loop.serverClock().monotonicWhenPassed(held.expiresAt()),
					this.loop.clock().nanoTime() + MIN_RETRY_NANOS), this.samples.trustsExpiriesFrom()));
		}, (ex) -> false);
	}

	private static long latest(long aNanos, long bNanos) {
		return (aNanos - bNanos >= 0) ? aNanos : bNanos;
	}

	private void scheduleAttempt(GroupElection group, long atNanos) {
		if (group.attempt != null) {
			group.attempt.cancel();
		}
		long delay = Math.max(0, atNanos - this.loop.clock().nanoTime());
		group.attempt = this.loop.schedule(() -> attempt(group), delay);
	}

	private LoopJob attempt(GroupElection group) {
		LoopJob job = new LoopJob("attempt on group " + group.name(),
				(ex) -> log.debug("Leadership attempt for group {} failed: {}", group.name(), ex.getMessage()));
		return job.then((j) -> compete(j, group, false));
	}

}
