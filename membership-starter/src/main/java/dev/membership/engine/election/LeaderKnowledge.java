package dev.membership.engine.election;

import java.time.Instant;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

import dev.membership.Membership;
import dev.membership.leadership.LeaderInfo;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

/**
 * What this node knows of one group's leader when it does not lead it: learned from the
 * lease (read every interval) or from a notice. Advisory only (the lease decides who
 * leads), but it drives fast succession and {@link Membership#leader(String)}. Knowledge
 * only moves forward in epochs, so late or reordered news can never make the known leader
 * flap. Changed, and published, by the node's loop only, in epoch order; read from any
 * thread.
 */
public final class LeaderKnowledge {

	private final String selfId;

	private final UnitEvents events;

	private volatile @Nullable LeaderInfo known;

	private long highestKnownEpoch;

	/**
	 * The highest epoch the store showed this node (a lease read, its own term): a
	 * notice's epoch may be at most one ahead of it.
	 */
	private long storeEpoch;

	/** Whether {@link #known} came from a notice the store has not shown yet. */
	private boolean fromNotice;

	LeaderKnowledge(String selfId, UnitEvents events) {
		this.selfId = selfId;
		this.events = events;
	}

	public LeaderInfo known() {
		return this.known;
	}

	/** The known leader when it is another node. */
	public LeaderInfo knownOther() {
		LeaderInfo info = this.known;
		return (info != null && !this.selfId.equals(info.nodeId())) ? info : null;
	}

	/**
	 * Takes {@code info}, which the store showed (a lease read, this node's own term), as
	 * the leader unless a newer epoch is known already.
	 */
	public void learn(LeaderInfo info) {
		this.storeEpoch = Math.max(this.storeEpoch, info.epoch());
		take(info, false);
	}

	/**
	 * Takes a notice's {@code info} as the leader when it is news, its epoch at most one
	 * past what the store showed (one term ahead of the last read; a later one is left to
	 * the next read), and its expiry no later than {@code latestExpiry} (what a lease
	 * taken now could have). A notice speeds up what the store would show anyway; it
	 * never holds back what the store shows ({@link #updateFromLease}).
	 */
	public void learnFromNotice(LeaderInfo info, Instant latestExpiry) {
		if (!isNews(info) || info.epoch() > this.storeEpoch + 1) {
			return;
		}
		Instant expiry = info.leaseExpiresAt().isAfter(latestExpiry) ? latestExpiry : info.leaseExpiresAt();
		take(new LeaderInfo(info.group(), info.nodeId(), info.address(), info.epoch(), expiry), true);
	}

	private void take(LeaderInfo info, boolean notice) {
		if (info.epoch() < this.highestKnownEpoch) {
			return;
		}
		this.highestKnownEpoch = info.epoch();
		this.fromNotice = notice;
		LeaderInfo previous = this.known;
		this.known = info;
		String before = (previous != null) ? previous.nodeId() : null;
		if (!Objects.equals(before, info.nodeId())) {
			this.events.changed(before, info.nodeId(), info.epoch());
		}
	}

	/** The group has no leader as far as this node can tell. */
	void forget() {
		LeaderInfo previous = this.known;
		if (previous == null) {
			return;
		}
		this.known = null;
		this.events.changed(previous.nodeId(), null, previous.epoch());
	}

	/** Forgets this node as the leader (its own term ended). */
	void forgetSelf() {
		LeaderInfo info = this.known;
		if (info != null && this.selfId.equals(info.nodeId())) {
			forget();
		}
	}

	/**
	 * A notice brings news only: a newer epoch, or the known leader again; never one this
	 * node has forgotten. From another node only.
	 */
	boolean isNews(LeaderInfo notice) {
		LeaderInfo info = this.known;
		return (info != null) ? notice.epoch() >= info.epoch() : notice.epoch() > this.highestKnownEpoch;
	}

	/**
	 * Updates the known leader from the group's lease as just read ({@code lease} null
	 * when the group has none), when this node does not lead: its holder while the lease
	 * has not certainly expired; nobody once it was released or has certainly expired,
	 * which lets this node compete at once. A lease older than what a notice already told
	 * is no news.
	 */
	public void updateFromLease(LeaseRecord lease, Instant certainlyPassed) {
		LeaderInfo info = this.known;
		if (lease != null && info != null && lease.epoch() < info.epoch()) {
			if (!this.fromNotice || info.leaseExpiresAt().isAfter(certainlyPassed)) {
				return; // read before the notice of a newer term
			}
			// a notice whose term the store never showed, and whose lease would have
			// expired by now: the store's reading wins
			this.highestKnownEpoch = lease.epoch();
			this.fromNotice = false;
		}
		if (lease != null) {
			this.storeEpoch = Math.max(this.storeEpoch, lease.epoch());
		}
		Holder holder = (lease != null) ? lease.holder() : null;
		if (holder != null && lease.expiresAt() != null && lease.expiresAt().isAfter(certainlyPassed)
				&& !holder.nodeId().equals(this.selfId)) {
			learn(new LeaderInfo(lease.group(), holder.nodeId(), holder.address(), lease.epoch(), lease.expiresAt()));
			return;
		}
		if (info != null && !this.selfId.equals(info.nodeId())) {
			forget();
		}
	}

}
