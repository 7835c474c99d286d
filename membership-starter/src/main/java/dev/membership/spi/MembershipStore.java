package dev.membership.spi;

import java.time.Instant;
import java.util.Collection;
import java.util.Optional;

/**
 * Where nodes and leases live: what the engine keeps in a database, by what it keeps
 * ({@link LeaseStore} the leases and the fire marks they carry, {@link NodeStore} the
 * nodes' documents, {@link RosterStore} the roster and its placements), and what spans
 * them: the store's preparation, its clock, and a member's read of an interval.
 * Implementations are plain data access: every time argument is computed by the caller
 * from the store's own clock (see {@link #serverTime()}), and every method is a single
 * atomic operation on one document or one query (a heartbeat that takes over another
 * incarnation's document: two), bounded by a timeout shorter than the lease. Failures
 * surface as {@link StoreException}.
 * <p>
 * The contract every implementation must pass is {@code MembershipStoreContract} in
 * {@code membership-test}: JUnit 5 tests a store's own test class extends; its parts
 * check each of the three ({@code LeaseContract}, {@code FireMarksContract},
 * {@code TakeOverContract}; {@code LivenessContract}; {@code RosterContract}).
 */
public interface MembershipStore extends LeaseStore, NodeStore, RosterStore {

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
	 * In one query: the leases of {@code groups}, and the roster without its member list
	 * and placements (version, keeper, recent changes) when its version is not
	 * {@code rosterVersion} (pass 0 to get any roster). This is every member's read of an
	 * interval, so it returns O(groups) small documents while the roster stays the same,
	 * and O(changes) when it did: never all partitions' owners, which a member reads with
	 * {@link #findRoster()} only when it cannot catch up by the changes. A store may
	 * return the placements regardless; members do not use them.
	 */
	LeaseReading findLeases(Collection<String> groups, long rosterVersion);

}
