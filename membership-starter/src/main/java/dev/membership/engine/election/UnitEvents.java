package dev.membership.engine.election;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.events.EventDispatch;
import dev.membership.engine.term.Unit;
import dev.membership.leadership.LeaderChangedEvent;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.leadership.PartitionAssignedEvent;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.RevocationReason;

/**
 * What a unit's election tells the application, in the shape of its kind: leadership
 * events for a group, partition events for a partition (whose revocation of a graceful
 * hand-over comes when the drain begins, as Kafka's rebalance listener has it, and is
 * said once per term).
 */
public final class UnitEvents {

	private final Unit unit;

	private final String selfId;

	private final EventDispatch events;

	/** The epoch whose revocation was said when its drain began, or 0. */
	private volatile long revocationSaid;

	UnitEvents(Unit unit, String selfId, EventDispatch events) {
		this.unit = unit;
		this.selfId = selfId;
		this.events = events;
	}

	void elected(long epoch) {
		this.events.publish(this.unit.isPartition()
				? new PartitionAssignedEvent(this.selfId, this.unit.group(), this.unit.partition(), epoch)
				: new LeaderElectedEvent(this.selfId, this.unit.group(), epoch));
	}

	/**
	 * A graceful hand-over of a partition began (no new work starts): its revocation, for
	 * the application.
	 */
	public void handingOver(long epoch, RevocationReason reason) {
		if (this.unit.isPartition()) {
			this.revocationSaid = epoch;
			this.events.publish(
					new PartitionRevokedEvent(this.selfId, this.unit.group(), this.unit.partition(), epoch, reason));
		}
	}

	/** The term ended (under the term end's lock). */
	void revoked(long epoch, RevocationReason reason) {
		if (!this.unit.isPartition()) {
			this.events.publish(new LeaderRevokedEvent(this.selfId, this.unit.group(), epoch, reason));
		}
		else if (this.revocationSaid != epoch || reason == RevocationReason.RENEWAL_DEADLINE_PASSED
				|| reason == RevocationReason.LEASE_LOST) {
			// a graceful hand-over overtaken by a fault (the deadline passed, the lease
			// went) is said again: the partition's work may still run, so the next
			// owner's can overlap it, which only fencing prevents
			this.events.publish(
					new PartitionRevokedEvent(this.selfId, this.unit.group(), this.unit.partition(), epoch, reason));
		}
	}

	void released(long epoch, @Nullable String successor) {
		this.events.publish(this.unit.isPartition()
				? new PartitionReleasedEvent(this.selfId, this.unit.group(), this.unit.partition(), epoch, successor)
				: new LeaseReleasedEvent(this.selfId, this.unit.group(), epoch, successor));
	}

	/**
	 * The known leader changed (groups only: a partition's owners are the placement's
	 * business).
	 */
	void changed(@Nullable String previous, @Nullable String next, long epoch) {
		if (!this.unit.isPartition()) {
			this.events.publish(new LeaderChangedEvent(this.selfId, this.unit.group(), previous, next, epoch));
		}
	}

}
