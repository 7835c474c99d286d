package dev.membership;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

import dev.membership.leadership.LeaderChangedEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.store.LeaderClaim;
import dev.membership.store.NodeRecord;

/**
 * What this node knows of one group's leader when it does not lead it: learned from the lease, from the leader's claim
 * in its node document, or from a notice. Advisory only (the lease decides who leads), but it drives fast succession
 * and {@link Membership#leader(String)}. Knowledge only moves forward in epochs, so late or reordered news can never
 * make the known leader flap. Changes are made and published under the group's monitor, in epoch order.
 */
final class LeaderKnowledge {

	private final String group;

	private final String selfId;

	private final Object monitor;

	private final EventDispatch events;

	private volatile LeaderInfo known;

	/** Database time no earlier than the known leader's acquisition, or null when unknown. */
	private volatile Instant knownSince;

	private long highestKnownEpoch;

	LeaderKnowledge(String group, String selfId, Object monitor, EventDispatch events) {
		this.group = group;
		this.selfId = selfId;
		this.monitor = monitor;
		this.events = events;
	}

	LeaderInfo known() {
		return this.known;
	}

	/** The known leader when it is another node. */
	LeaderInfo knownOther() {
		LeaderInfo info = this.known;
		return (info != null && !this.selfId.equals(info.nodeId())) ? info : null;
	}

	/** Takes {@code info} as the leader unless a newer epoch is known already. */
	void learn(LeaderInfo info, Instant since) {
		synchronized (this.monitor) {
			if (info.epoch() < this.highestKnownEpoch) {
				return;
			}
			this.highestKnownEpoch = info.epoch();
			LeaderInfo previous = this.known;
			this.known = info;
			this.knownSince = since;
			String before = (previous != null) ? previous.nodeId() : null;
			if (!Objects.equals(before, info.nodeId())) {
				this.events.publish(new LeaderChangedEvent(this.selfId, this.group, before, info.nodeId(), info.epoch()));
			}
		}
	}

	/** The group has no leader as far as this node can tell. */
	void forget() {
		synchronized (this.monitor) {
			LeaderInfo previous = this.known;
			if (previous == null) {
				return;
			}
			this.known = null;
			this.knownSince = null;
			this.events.publish(new LeaderChangedEvent(this.selfId, this.group, previous.nodeId(), null,
					previous.epoch()));
		}
	}

	/** Forgets this node as the leader (its own term ended). */
	void forgetSelf() {
		synchronized (this.monitor) {
			LeaderInfo info = this.known;
			if (info != null && this.selfId.equals(info.nodeId())) {
				forget();
			}
		}
	}

	/**
	 * A notice brings news only: a newer epoch, or the known leader again; never one this node has forgotten. From
	 * another node only.
	 */
	boolean isNews(LeaderInfo notice) {
		synchronized (this.monitor) {
			LeaderInfo info = this.known;
			return (info != null) ? notice.epoch() >= info.epoch() : notice.epoch() > this.highestKnownEpoch;
		}
	}

	/**
	 * Updates the known leader from a member listing, when this node does not lead: the newest claim of another node
	 * that has not certainly expired; a claim that vanished with its node (graceful stop) or was withdrawn (resign)
	 * frees the lease at once.
	 */
	void updateFromListing(List<NodeRecord> records, Instant certainlyPassed) {
		NodeRecord claimant = claimant(records, certainlyPassed);
		LeaderInfo info = this.known;
		if (claimant != null) {
			LeaderClaim claim = claimant.leading().get(this.group);
			if (info == null || claim.epoch() >= info.epoch()) {
				learn(new LeaderInfo(this.group, claimant.nodeId(), claimant.address(), claim.epoch(), claim.expiresAt()),
						claimant.updatedAt());
				return;
			}
		}
		if (info == null || this.selfId.equals(info.nodeId())) {
			return;
		}
		Instant since = this.knownSince;
		if (info.leaseExpiresAt().isAfter(certainlyPassed)
				&& records.stream().anyMatch((r) -> hasNotHeartbeatedSince(r, info.nodeId(), since))) {
			// learned from the lease or a notice, and its holder has not heartbeated since: no claim to expect yet
			return;
		}
		forget();
	}

	/** Another node's claim with the highest epoch that has not certainly expired; this node's own are stale. */
	private NodeRecord claimant(List<NodeRecord> records, Instant certainlyPassed) {
		NodeRecord best = null;
		long bestEpoch = 0;
		for (NodeRecord r : records) {
			if (r.nodeId().equals(this.selfId)) {
				continue;
			}
			LeaderClaim claim = r.leading().get(this.group);
			if (claim != null && claim.expiresAt() != null && claim.expiresAt().isAfter(certainlyPassed)
					&& (best == null || claim.epoch() > bestEpoch)) {
				best = r;
				bestEpoch = claim.epoch();
			}
		}
		return best;
	}

	/**
	 * A leader heartbeats its claim right after acquiring, so a heartbeat stamped after the acquisition without a claim
	 * means it resigned or lost the lease. Both times are database times; {@code since} is no earlier than the
	 * acquisition (null when unknown: then keep the leader until its lease has certainly expired).
	 */
	private static boolean hasNotHeartbeatedSince(NodeRecord record, String nodeId, Instant since) {
		return record.nodeId().equals(nodeId)
				&& (since == null || record.updatedAt() == null || !record.updatedAt().isAfter(since));
	}

}
