package dev.membership.engine.election;

import java.util.function.Supplier;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.events.EventDispatch;
import dev.membership.engine.term.Runs;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;

/**
 * This node's side of one unit's election (a group's leadership, or one partition): a
 * state machine whose state only the node's loop changes.
 *
 * <pre>
 * state         event                                        next           and
 * FOLLOWING     acquired: a lease the store granted          LEADING        a term starts: elected (or assigned)
 * FOLLOWING     declined: granted in the old clock           HOLDING_OFF    no term; out of the race for a lease
 * FOLLOWING     a run of the unit hangs here                 HOLDING_OFF    out of the race while it runs
 * LEADING       renewed                                      LEADING        the term's deadline moves
 * LEADING       lost: a renewal refused                      FOLLOWING      the term ends: LEASE_LOST
 * LEADING       deadline passed (watchdog)                   FOLLOWING      the term ended: RENEWAL_DEADLINE_PASSED
 * LEADING       resigned; moved (placed on another node);    HANDING_OVER   no new work
 *               a run hung
 * LEADING       stopping                                     HANDING_OVER   no new work
 * HANDING_OVER  renewed                                      HANDING_OVER   the lease stays renewed while work drains
 * HANDING_OVER  drained (a resign, a move, a hung run)       HOLDING_OFF    the term ends: RESIGNED, MOVED, HUNG;
 *                                                                           release
 *                                                            (FOLLOWING for a move)
 * HANDING_OVER  lost, deadline passed                        HOLDING_OFF    (a resign, a hung run), FOLLOWING (a
 *                                                                           move, a stop)
 * HOLDING_OFF   hold-off over                                FOLLOWING
 * any           left: the goodbye of a graceful stop         STOPPED        a term ends: SHUTDOWN
 * </pre>
 *
 * Resigned and stopping in any other state change nothing; any other event is illegal and
 * throws. Off the loop only the watchdog ends a term whose deadline passed (and tells the
 * loop), and a resign, a move or a stop stops new work ({@link Term#handOver()}) before
 * telling the loop; ending a term and saying so happen once per term ({@link TermEnd}).
 */
public final class GroupElection {

	private static final Logger log = LoggerFactory.getLogger(GroupElection.class);

	public enum State {

		FOLLOWING, LEADING, HANDING_OVER, HOLDING_OFF, STOPPED

	}

	private final Unit unit;

	private final String name;

	private final String selfId;

	private final NodeRuntime runtime;

	private final UnitEvents events;

	private final MonotonicClock clock;

	private final LeadershipObserver observer;

	private final LeaderKnowledge leader;

	private final TermEnd ending;

	/**
	 * Confined to the loop, as is everything below (the term and the lease's expiry are
	 * also read elsewhere).
	 */
	private State state = State.FOLLOWING;

	private volatile @Nullable Term term;

	private volatile @Nullable Instant leaseExpiresAt;

	/**
	 * RESIGNED, MOVED or SHUTDOWN while handing over; how long after that this node stays
	 * out of the race.
	 */
	private @Nullable RevocationReason handingOverFor;

	private final HoldOff holdOff;

	/** The next scheduled attempt to acquire. */
	private NodeRuntime.@Nullable Timer attempt;

	/**
	 * Schedules the next attempt to acquire with {@code schedule}, calling off the one
	 * scheduled before; on the loop.
	 */
	public void attemptLater(Supplier<NodeRuntime.Timer> schedule) {
		cancelAttempt();
		this.attempt = schedule.get();
	}

	/** Calls off the next scheduled attempt, if any; on the loop, as the node leaves. */
	public void cancelAttempt() {
		if (this.attempt != null) {
			this.attempt.cancel();
		}
	}

	/** What watches the runs of this node's terms. */
	private final Runs runs;

	GroupElection(Unit unit, String selfId, MonotonicClock clock, NodeRuntime runtime, EventDispatch events,
			LeadershipObserver observer, Runs runs) {
		this.unit = unit;
		this.runs = runs;
		this.holdOff = new HoldOff(unit, runs);
		this.name = unit.leaseName();
		this.selfId = selfId;
		this.clock = clock;
		this.runtime = runtime;
		this.events = new UnitEvents(unit, selfId, events);
		this.observer = observer;
		this.leader = new LeaderKnowledge(selfId, this.events);
		this.ending = new TermEnd(this.name, selfId, clock, runtime, this.events, observer);
	}

	/** The lease's name: the group's, or {@code group#partition}. */
	public String name() {
		return this.name;
	}

	public Unit unit() {
		return this.unit;
	}

	public UnitEvents events() {
		return this.events;
	}

	public LeaderKnowledge leader() {
		return this.leader;
	}

	/**
	 * The current term, valid or not; null when this node does not lead. From any thread.
	 */
	public @Nullable Term term() {
		return this.term;
	}

	/**
	 * Whether this node leads the group now, by the term's own deadline. From any thread.
	 */
	public boolean isLeader() {
		Term t = this.term;
		return t != null && t.isValid();
	}

	/** This node as the leader, when it leads. From any thread. */
	public @Nullable LeaderInfo self(@Nullable String address) {
		Term t = this.term;
		Instant expires = this.leaseExpiresAt;
		return (t != null && t.isValid() && expires != null)
				? new LeaderInfo(this.name, this.selfId, address, t.epoch(), expires) : null;
	}

	public State state() {
		confined();
		settle();
		return this.state;
	}

	/**
	 * When the hold-off ends, or null when the group is not held off at {@code nowNanos}.
	 * While a run of this unit hangs on this node, it is held off, a while at a time.
	 */
	public @Nullable Long holdOffUntil(long nowNanos) {
		State current = state();
		boolean hangs = (current == State.FOLLOWING || current == State.HOLDING_OFF) && this.holdOff.hangs();
		if (current == State.FOLLOWING && hangs) {
			holdOff(nowNanos + this.holdOff.recheckNanos());
		}
		if (this.state != State.HOLDING_OFF) {
			return null;
		}
		Long until = this.holdOff.remaining(nowNanos, hangs);
		if (until == null) {
			move(State.HOLDING_OFF, State.FOLLOWING);
		}
		return until;
	}

	/**
	 * Acquired: begins a term on a lease the store granted, unless it is too late
	 * ({@code deadlineNanos} passed while the reply was on its way): then the lease
	 * simply expires in the database. Returns whether it did.
	 */
	public boolean acquired(LeaseRecord lease, long deadlineNanos, Instant expiresAt, @Nullable String address) {
		long now = this.clock.nanoTime();
		if (now - deadlineNanos >= 0) {
			return false;
		}
		confined();
		move(State.FOLLOWING, State.LEADING);
		Term started = new Term(this.unit, lease.epoch(), deadlineNanos, this.clock, this.runs);
		this.term = started;
		this.leaseExpiresAt = expiresAt;
		this.observer.started(this.selfId, this.name, started.epoch(), now);
		this.ending.arm(started, this::settle);
		this.leader.learn(new LeaderInfo(this.name, this.selfId, address, started.epoch(), expiresAt));
		this.events.elected(started.epoch());
		log.info("Node {} took the lease of '{}' (epoch {})", this.selfId, this.name, started.epoch());
		return true;
	}

	/**
	 * Out of the race until {@code untilNanos}: a lease granted in the database's old
	 * clock was declined, or a run of this unit hangs on this node.
	 */
	public void holdOff(long untilNanos) {
		confined();
		move(State.FOLLOWING, State.HOLDING_OFF);
		this.holdOff.until(untilNanos);
	}

	/**
	 * When this node last sent a renewal of this lease on its own (not in a batch), and
	 * the last such renewal that failed (it may still land); whether there was any.
	 */
	private long aloneSentNanos;

	private boolean renewedAlone;

	private long failedSentNanos;

	private boolean failedAlone;

	/** A renewal of this lease alone ({@code Renewals#renewAlone}) is sent now. */
	public void renewingAlone(long sentNanos) {
		this.aloneSentNanos = sentNanos;
		this.renewedAlone = true;
	}

	/** The renewal of this lease alone sent at {@code sentNanos} failed: it may land. */
	public void renewalAloneFailed(long sentNanos) {
		this.failedSentNanos = sentNanos;
		this.failedAlone = true;
	}

	/**
	 * Whether a renewal of this lease alone may have landed after a batch sent at
	 * {@code batchSentNanos}: sent after it, or failed within a lease before it (a store
	 * bounds its statements well within one). Then the lease's {@code renewedAt} may be
	 * that renewal's stamp, not the batch's.
	 */
	public boolean mayHaveRenewedAloneAfter(long batchSentNanos, long leaseNanos) {
		return (this.renewedAlone && this.aloneSentNanos - batchSentNanos >= 0)
				|| (this.failedAlone && this.failedSentNanos + leaseNanos - batchSentNanos > 0);
	}

	/** Renewed: moves the term's deadline, unless it ended meanwhile. */
	public void renewed(Term renewed, long deadlineNanos, Instant expiresAt) {
		State now = state();
		if ((now != State.LEADING && now != State.HANDING_OVER) || this.term != renewed) {
			return; // ended meanwhile: a late reply
		}
		if (renewed.extend(deadlineNanos)) {
			this.leaseExpiresAt = expiresAt;
			this.ending.arm(renewed, this::settle);
		}
	}

	/** Lost: a renewal found the lease gone. */
	public void lost(Term lost) {
		State now = state();
		if (this.term == lost && (now == State.LEADING || now == State.HANDING_OVER)) {
			end(lost, RevocationReason.LEASE_LOST);
			afterEnd();
		}
	}

	/**
	 * Resigned or moved elsewhere by the placement (after {@link Term#handOver()} off the
	 * loop): the drain runs, and once the term has ended the node stays out of the race
	 * for {@code holdOffNanos}, so that it does not take its own lease straight back.
	 * Only the term {@code asked} is handed over: a hand-over asked for a term that ended
	 * before this ran on the loop (its deadline passed while the node was paused, say)
	 * must not put the next term into hand-over, where nothing would ever end it.
	 */
	public boolean resigned(@Nullable Term asked, RevocationReason reason, long holdOffNanos) {
		if (state() != State.LEADING || this.term != asked) {
			// that term ended meanwhile: a newer one is not handed over on its behalf
			return false;
		}
		move(State.LEADING, State.HANDING_OVER);
		this.handingOverFor = reason;
		this.holdOff.afterHandOver(holdOffNanos);
		return true;
	}

	/** Stopping: a graceful stop drains this group's work. */
	public void stopping() {
		resigned(this.term, RevocationReason.SHUTDOWN, 0);
	}

	/**
	 * Drained, after a resign or move: ends the term; returns its epoch, to release, or
	 * null when it had ended.
	 */
	public @Nullable Long drained(Term drained) {
		RevocationReason reason = this.handingOverFor;
		if (state() != State.HANDING_OVER || this.term != drained || reason == null
				|| reason == RevocationReason.SHUTDOWN) {
			return null;
		}
		end(drained, reason);
		afterEnd();
		return drained.epoch();
	}

	/**
	 * The goodbye of a graceful stop: ends a term still believed (the stop ended it off
	 * the loop already).
	 */
	public void left() {
		confined();
		settle();
		Term t = this.term;
		if (t != null && (this.state == State.LEADING || this.state == State.HANDING_OVER)) {
			end(t, RevocationReason.SHUTDOWN);
			this.term = null;
			this.leader.forgetSelf();
		}
		this.ending.disarm();
		if (this.attempt != null) {
			this.attempt.cancel();
			this.attempt = null;
		}
		this.state = State.STOPPED;
	}

	/**
	 * Ends a term and says so; once per term, whoever ends it ({@link TermEnd}). From any
	 * thread.
	 */
	public boolean end(Term ending, RevocationReason reason) {
		return this.ending.end(ending, reason);
	}

	/** Ends the current term without a word, like a crash. From any thread. */
	public void halt() {
		this.ending.silently(this.term);
	}

	/**
	 * The loop's catch-up with what happened off it: a term whose deadline passed (the
	 * watchdog may not have said so yet: then this says it) ends the belief in this state
	 * machine too.
	 */
	private void settle() {
		Term t = this.term;
		if (t != null && (this.state == State.LEADING || this.state == State.HANDING_OVER) && !t.isValid()) {
			end(t, RevocationReason.RENEWAL_DEADLINE_PASSED);
			afterEnd();
		}
	}

	private void afterEnd() {
		this.term = null;
		this.leader.forgetSelf();
		this.ending.disarm();
		// a resign's or a hung run's hand-over holds the node off a while
		boolean heldOff = this.handingOverFor != null && this.holdOff.startsAfterHandOver(this.clock.nanoTime());
		this.state = heldOff ? State.HOLDING_OFF : State.FOLLOWING;
		this.handingOverFor = null;
	}

	private void move(State from, State to) {
		if (this.state != from) {
			throw new IllegalStateException("Group '" + this.name + "' cannot go from " + this.state + " to " + to
					+ " (expected " + from + ")");
		}
		this.state = to;
	}

	private void confined() {
		if (!this.runtime.loop().isCurrent()) {
			throw new IllegalStateException("Group '" + this.name + "': election state touched off the loop, on "
					+ Thread.currentThread().getName());
		}
	}

}
