package dev.membership.spi;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A group's lease as the store holds it. {@code expiresAt} is in the store's clock;
 * {@code epoch} grows by one at every acquisition and never otherwise, which makes it a
 * fencing token. {@code renewedAt} is the store's time of the last acquisition or
 * renewal: a holder keeps itself live through it instead of heartbeating. {@code fires}:
 * the last fire of each scheduled job of the group that a holder began, as its last
 * renewal or release wrote them; an acquisition leaves them, so that the next term finds
 * them.
 */
public record LeaseRecord(String group, @Nullable Holder holder, long epoch, @Nullable Instant expiresAt,
		@Nullable Instant acquiredAt, Instant renewedAt, List<FireMark> fires) {

	public LeaseRecord {
		fires = (fires != null) ? List.copyOf(fires) : List.of();
	}

	/** A lease that carries no fires. */
	public LeaseRecord(String group, @Nullable Holder holder, long epoch, @Nullable Instant expiresAt,
			@Nullable Instant acquiredAt, Instant renewedAt) {
		this(group, holder, epoch, expiresAt, acquiredAt, renewedAt, List.of());
	}

	/** Expiry of a released lease. */
	public static final Instant RELEASED = Instant.EPOCH;

	public boolean isHeldBy(Holder candidate) {
		return this.holder != null && this.holder.nodeId().equals(candidate.nodeId())
				&& this.holder.incarnation().equals(candidate.incarnation());
	}

}
