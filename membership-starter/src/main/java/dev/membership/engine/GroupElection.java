package dev.membership.engine;

import dev.membership.spi.NodeRuntime;

import dev.membership.spi.LeadershipObserver;

import java.time.Instant;
import java.util.function.BooleanSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MonotonicClock;

/**
 * This node's side of one group's election: the term it leads under (if any), the deadline that ends the belief by the
 * local monotonic clock, and the hold-off after a resign. Beliefs begin only here, from a lease the store granted, and
 * end here, at the first of revocation, lost lease, missed deadline or shutdown. Transitions happen under this object's
 * monitor and are published under it, so a revocation is never published before the election it ends.
 */
final class GroupElection {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final String name;

	private final String selfId;

	private final MonotonicClock clock;

	private final NodeRuntime.Lane watchdog;

	private final EventDispatch events;

	private final LeadershipObserver observer;

	private final LeaderKnowledge leader;

	/** The current term, for readers on any thread; null when this node does not lead. */
	private volatile LeadershipTerm term;

	/** The current term's owner side: extended, handed over and ended by this node only. */
	private volatile LeadershipTerm.Control control;

	private volatile Instant leaseExpiresAt;

	private volatile long holdOffUntilNanos;

	private volatile boolean holdingOff;

	private NodeRuntime.Timer deadlineTimer;

	/** The next scheduled attempt to acquire; confined to the loop. */
	NodeRuntime.Timer attempt;

	GroupElection(String name, String selfId, MonotonicClock clock, NodeRuntime runtime, EventDispatch events,
			LeadershipObserver observer) {
		this.name = name;
		this.selfId = selfId;
		this.clock = clock;
		this.watchdog = runtime.watchdog();
		this.events = events;
		this.observer = observer;
		this.leader = new LeaderKnowledge(name, selfId, this, events);
	}

	String name() {
		return this.name;
	}

	LeaderKnowledge leader() {
		return this.leader;
	}

	boolean isLeader() {
		LeadershipTerm t = this.term;
		return t != null && t.isValid();
	}

	/** The current term, valid or not; null when this node does not lead. */
	LeadershipTerm term() {
		return this.term;
	}

	LeadershipTerm.Control control() {
		return this.control;
	}

	/** This node as the leader, when it leads. */
	LeaderInfo self(String address) {
		LeadershipTerm t = this.term;
		return (t != null && t.isValid()) ? new LeaderInfo(this.name, this.selfId, address, t.epoch(),
				this.leaseExpiresAt) : null;
	}

	/**
	 * Keeps this node out of the race until {@code untilNanos} at least: after a resign it must not take the lease
	 * straight back, after a jump of the database's clock it must wait for beliefs resting on the other clock to end.
	 */
	synchronized void holdOff(long untilNanos) {
		if (!this.holdingOff || untilNanos - this.holdOffUntilNanos > 0) {
			this.holdOffUntilNanos = untilNanos;
		}
		this.holdingOff = true;
	}

	/** When the hold-off ends, or null when there is none at {@code nowNanos}. */
	Long holdOffUntil(long nowNanos) {
		long until = this.holdOffUntilNanos;
		return (this.holdingOff && nowNanos - until < 0) ? until : null;
	}

	/**
	 * Begins a term on a lease the store granted, unless it is too late ({@code deadlineNanos} passed while the reply
	 * was on its way) or the node may no longer lead. Returns whether it did.
	 */
	boolean begin(LeaseRecord lease, long deadlineNanos, Instant expiresAt, BooleanSupplier mayLead, String address) {
		long epoch = lease.epoch();
		synchronized (this) {
			long now = this.clock.nanoTime();
			if (!mayLead.getAsBoolean() || now - deadlineNanos >= 0) {
				return false; // too late to lead this term: it simply expires in the database
			}
			LeadershipTerm.Control started = LeadershipTerm.start(this.name, epoch, deadlineNanos, this.clock);
			this.control = started;
			this.term = started.term();
			this.leaseExpiresAt = expiresAt;
			this.observer.started(this.selfId, this.name, epoch, now);
			armDeadline(started.term());
			this.leader.learn(new LeaderInfo(this.name, this.selfId, address, epoch, expiresAt));
			this.events.publish(new LeaderElectedEvent(this.name, this.selfId, epoch));
		}
		log.info("Node {} elected leader of group '{}' (epoch {})", this.selfId, this.name, epoch);
		return true;
	}

	/** Moves the live term's deadline after a successful renewal; captured terms see it too. */
	void extend(LeadershipTerm renewed, long deadlineNanos, Instant expiresAt) {
		synchronized (this) {
			LeadershipTerm.Control c = this.control;
			if (c == null || c.term() != renewed || !c.extend(deadlineNanos)) {
				return; // already revoked, or the deadline passed while the renewal was in flight
			}
			this.leaseExpiresAt = expiresAt;
			armDeadline(renewed);
		}
	}

	/** Ends {@code ending} if it is still current; returns whether this call ended it. */
	boolean revoke(LeadershipTerm ending, RevocationReason reason) {
		synchronized (this) {
			if (!end(ending)) {
				return false;
			}
			this.leader.forgetSelf();
			this.events.publish(new LeaderRevokedEvent(this.name, this.selfId, ending.epoch(), reason));
		}
		if (reason == RevocationReason.RENEWAL_DEADLINE_PASSED || reason == RevocationReason.LEASE_LOST) {
			log.warn("Node {} no longer leads group '{}' (epoch {}): {}", this.selfId, this.name, ending.epoch(), reason);
		}
		else {
			log.info("Node {} no longer leads group '{}' (epoch {}): {}", this.selfId, this.name, ending.epoch(), reason);
		}
		return true;
	}

	/** Ends the current term without a word, like a crash. */
	void halt() {
		synchronized (this) {
			LeadershipTerm t = this.term;
			if (t != null) {
				end(t);
			}
		}
	}

	private boolean end(LeadershipTerm ending) {
		LeadershipTerm.Control c = this.control;
		if (c == null || c.term() != ending) {
			return false;
		}
		this.term = null;
		this.control = null;
		if (this.deadlineTimer != null) {
			this.deadlineTimer.cancel();
			this.deadlineTimer = null;
		}
		c.end(); // captured terms turn invalid now; interruptible work is interrupted
		this.observer.ended(this.selfId, this.name, ending.epoch(),
				Math.min(this.clock.nanoTime(), ending.deadlineNanos()));
		return true;
	}

	private void armDeadline(LeadershipTerm armed) {
		if (this.deadlineTimer != null) {
			this.deadlineTimer.cancel();
		}
		// null once the node is stopping: the stop path ends the beliefs itself, and isLeader() is exact anyway
		this.deadlineTimer = this.watchdog.schedule(() -> onDeadline(armed),
				Math.max(0, armed.deadlineNanos() - this.clock.nanoTime()));
	}

	private void onDeadline(LeadershipTerm armed) {
		if (armed.isValid()) {
			synchronized (this) {
				if (this.term == armed) {
					armDeadline(armed); // woke early
				}
			}
			return;
		}
		revoke(armed, RevocationReason.RENEWAL_DEADLINE_PASSED);
	}

}
