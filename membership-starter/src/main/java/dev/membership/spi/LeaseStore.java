package dev.membership.spi;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The leases a store keeps, one per plain group and per partition, each with the marks of
 * its unit's scheduled fires ({@link LeaseRecord#fires()}), which ride on its writes.
 * Part of {@link MembershipStore}: every time argument comes from the store's own clock,
 * every method is one atomic operation, bounded well within a lease. Checked by
 * {@code LeaseContract}, {@code FireMarksContract} and {@code TakeOverContract} in
 * {@code membership-test}.
 */
public interface LeaseStore {

	/**
	 * Takes the group's lease when it has no holder, has expired before
	 * {@code expiredBefore}, or is already held by this very holder (same node id and
	 * incarnation) with an expiry before {@code expiresAt}; the epoch grows by one and
	 * {@code acquiredAt} and {@code renewedAt} are stamped with the store's clock (the
	 * caller's clock sample: a stamp that contradicts its estimate of that clock makes it
	 * decline the term). Empty otherwise. The last condition makes a request that reaches
	 * the store late, after a newer acquisition or renewal of the same holder, a no-op
	 * instead of a new term the holder does not know of.
	 */
	Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt);

	/**
	 * As {@link #tryAcquire}, and also when node {@code from} still holds the lease with
	 * {@code epoch}: the take-over of a term a notice said was let go, before its release
	 * reaches the store. The engine no longer calls it (a notice must never outrank the
	 * store: a successor now takes the lease once the release landed); kept for stores
	 * that implement it, and checked by {@code TakeOverContract}. The epoch pins the
	 * term: a later term of the same node, or any other holder, is not taken. By default
	 * {@link #tryAcquire} alone, which takes the lease once the release has landed; a
	 * store should do both in one conditional write.
	 */
	default Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		return tryAcquire(group, holder, expiredBefore, expiresAt);
	}

	/**
	 * Extends the lease to {@code expiresAt} if {@code holder} still holds it with
	 * {@code epoch} and has not released it, never moving the expiry back (a renewal that
	 * reaches the store after a later one must not shorten the lease, nor one that
	 * arrives after the release revive it), and stamps {@code renewedAt} with the store's
	 * clock; in the same write, replaces the lease's {@link LeaseRecord#fires()} with
	 * {@code fires} (null: leaves them). Returns that time (the caller's clock sample,
	 * and the holder's liveness), or empty when the lease was lost or released (and then
	 * nothing is written).
	 */
	Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt, @Nullable List<FireMark> fires);

	/**
	 * Renews, in one operation, every lease named in {@code epochs} that {@code holder}
	 * still holds with the epoch given for it, has not released, and whose expiry is
	 * before {@code expiresAt}, as {@link #renew} does for one ({@code renewedAt} stamped
	 * with the store's clock); leaves the others alone, so that a request of the holder
	 * that reaches the store after a newer one changes nothing, and a lease's
	 * {@code renewedAt} is always the stamp of the renewal that wrote its expiry (the
	 * caller's clock sample). Returns how many it renewed. The operation need not be
	 * atomic across leases, only per lease. The caller learns which were renewed, and the
	 * stamps, from its next read of those leases: a lease held by it with the same epoch,
	 * not released, was renewed, since nothing else can make a lease match again once it
	 * did not. What a node renews the partitions it owns with (and the plain groups it
	 * leads, when it has partitioned groups). A lease named in {@code fires} gets those
	 * as its {@link LeaseRecord#fires()} in the same write as its renewal, as
	 * {@link #renew} writes them; the others keep theirs. Applying it twice changes
	 * nothing more than once: the node reissues it once after a
	 * {@linkplain StoreException#isRetryable() retryable} failure.
	 */
	long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt, Map<String, List<FireMark>> fires);

	/**
	 * Marks the lease expired (epoch unchanged) if {@code holder} still holds it with
	 * {@code epoch}, and in the same write replaces its {@link LeaseRecord#fires()} with
	 * {@code fires} (null: leaves them), for the next term.
	 */
	boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires);

	/**
	 * {@link #release} for every lease of {@code epochs} (lease name to epoch) at once,
	 * each with its {@code fires} (a lease absent there keeps its own); returns how many
	 * of them {@code holder} held with those epochs, all now released. What a graceful
	 * stop releases its leases with; by default one {@link #release} each, a store may do
	 * it in one call. Reissued once after a {@linkplain StoreException#isRetryable()
	 * retryable} failure, as {@link #renewAll} is.
	 */
	default long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		long released = 0;
		for (Map.Entry<String, Long> lease : epochs.entrySet()) {
			if (release(lease.getKey(), holder, lease.getValue(), fires.get(lease.getKey()))) {
				released++;
			}
		}
		return released;
	}

	/**
	 * The lease of {@code group} as the store has it now, read after a lost acquisition
	 * to learn who won: the latest write, which a read of majority-committed data may not
	 * show yet (MongoDB: a local read of the primary). Advice only (who to wait for, and
	 * until when); no decision rests on it.
	 */
	Optional<LeaseRecord> findLease(String group);

}
