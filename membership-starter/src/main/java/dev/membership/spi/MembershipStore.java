package dev.membership.spi;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;

/**
 * Where nodes and leases live. Implementations are plain data access: every time argument
 * is computed by the caller from the store's own clock (see {@link #serverTime()}), and
 * every method is a single atomic operation on one document or one query (a heartbeat
 * that takes over another incarnation's document: two), bounded by a timeout shorter than
 * the lease. Failures surface as {@link StoreException}.
 * <p>
 * The contract every implementation must pass is {@code MembershipStoreContract} in
 * {@code membership-test}: JUnit 5 tests a store's own test class extends.
 */
public interface MembershipStore {

	/**
	 * Creates indexes and the like, and checks that the store as set up can keep leases
	 * safe. Idempotent; safety never depends on the indexes. Throws
	 * {@link IllegalStateException} (saying what to change) when the store cannot keep
	 * leases safe (MongoDB: membership collections spread over several shards): the node
	 * then takes no lease and says so at every tick.
	 */
	void initialize();

	/**
	 * The current time of the clock that stamps this store's writes, read without
	 * writing; empty when the store cannot read that clock so (MongoDB behind a
	 * {@code mongos}: the router answers with its own host's clock, while the shard's
	 * primary stamps the writes). The node then takes its samples of the store's clock
	 * from its writes' stamps alone (a heartbeat's comes before any lease write).
	 */
	Optional<Instant> serverTime();

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

	/**
	 * In one query: the leases of {@code groups}, and the roster without its member list
	 * and placements (version, keeper, recent changes) when its version is not
	 * {@code rosterVersion} (pass 0 to get any roster). This is every member's read of an
	 * interval, so it returns O(groups) small documents while the roster stays the same,
	 * and O(changes) when it did: never all partitions' owners, which a member reads with
	 * {@link #findRoster()} only when it cannot catch up by the changes. A store may
	 * return the placements regardless; members do not use them.
	 */
	LeaseReading findLeases(Collection<String> groups, long rosterVersion);

	/**
	 * The whole roster, member list included: for a member too far behind for the recent
	 * changes.
	 */
	Optional<Roster> findRoster();

	/**
	 * Replaces the roster with {@code members} and its recent {@code changes} and
	 * increments its version, if the roster was last written with an older epoch, or with
	 * {@code epoch} and a smaller {@code sequence} (the keeper's own count of its
	 * writes): a deposed keeper, or a write of this keeper that reaches the store after a
	 * later one, changes nothing. Returns the new version, or empty when fenced off. The
	 * caller holds the default group's lease with {@code epoch}. The roster also carries
	 * the keeper's placement of every group ({@code assignments}); members catch up on it
	 * by the changes' {@link RosterChange#placed()}, which the store keeps as given.
	 */
	OptionalLong writeRoster(List<Member> members, List<RosterChange> changes, Map<String, GroupAssignment> assignments,
			String keeperNodeId, long epoch, long sequence);

	/** {@link #writeRoster(List, List, Map, String, long, long)} without placements. */
	default OptionalLong writeRoster(List<Member> members, List<RosterChange> changes, String keeperNodeId, long epoch,
			long sequence) {
		return writeRoster(members, changes, Map.of(), keeperNodeId, epoch, sequence);
	}

	/**
	 * Upserts the node's document, stamping {@code updatedAt} with the store's clock
	 * ({@code node.updatedAt()} is ignored), and {@code startedAt} too when the node does
	 * not know it yet (null: its first write, before any sample of the store's clock),
	 * and says when, and whether the document belonged to another incarnation.
	 */
	Heartbeat heartbeat(NodeRecord node);

	/** Every node document, live or not: the roster keeper's read. */
	List<NodeRecord> findNodes();

	/** Removes the node's document if it still belongs to {@code incarnation}. */
	void removeNode(String nodeId, String incarnation);

	/**
	 * Removes node documents whose last heartbeat is older than {@code cutoff}; returns
	 * how many.
	 */
	long removeNodesNotSeenSince(Instant cutoff);

}
