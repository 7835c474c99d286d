package dev.membership.spi;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A group's lease as the store holds it. {@code expiresAt} is in the store's clock; {@code epoch} grows by one at every
 * acquisition and never otherwise, which makes it a fencing token. {@code renewedAt} is the store's time of the last
 * acquisition or renewal: a holder keeps itself live through it instead of heartbeating.
 */
public record LeaseRecord(String group, @Nullable Holder holder, long epoch, @Nullable Instant expiresAt,
		@Nullable Instant acquiredAt,
		Instant renewedAt) {

	/** Expiry of a released lease. */
	public static final Instant RELEASED = Instant.EPOCH;

	public boolean isHeldBy(Holder candidate) {
		return this.holder != null && this.holder.nodeId().equals(candidate.nodeId())
				&& this.holder.incarnation().equals(candidate.incarnation());
	}

}
