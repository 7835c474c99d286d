package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

import com.mongodb.ReadConcern;
import com.mongodb.client.model.UpdateOptions;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.FireMark;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

/**
 * The MongoDB store, written once over {@link DocumentDatabase} for both drivers: what it
 * does and why is said on {@link MongoMembershipStore} (the blocking driver) and
 * {@link ReactiveMongoMembershipStore} (the reactive one).
 */
abstract class DocumentsStore implements MembershipStore {

	private final DocumentDatabase database;

	private final Documents nodes;

	private final Documents leases;

	/**
	 * One document per lease with its newest term's epoch, written as each term begins:
	 * {@link TermDocuments}.
	 */
	private final Documents terms;

	private final Duration operationTimeout;

	private final MongoStoreSettings settings;

	private final Duration deadNodeRetention;

	private final ServerTime serverTime = new ServerTime();

	/**
	 * How many node documents the last read found: the next read's batch size follows it.
	 */
	private volatile int lastNodeCount;

	/**
	 * The store on {@code database}, whose calls are bounded by the operation timeout and
	 * read from the primary.
	 */
	DocumentsStore(DocumentDatabase database, MongoStoreSettings settings) {
		this.database = database;
		this.nodes = database.collection(settings.nodesCollection());
		this.leases = database.collection(settings.leasesCollection())
			.withWriteConcern(settings.leaseWriteConcern())
			.withReadConcern(ReadConcern.MAJORITY);
		this.terms = database.collection(settings.termsCollection()).withWriteConcern(settings.leaseWriteConcern());
		this.operationTimeout = settings.operationTimeout();
		this.settings = settings;
		this.deadNodeRetention = settings.deadNodeRetention();
	}

	/** The settings of this store. */
	public MongoStoreSettings settings() {
		return this.settings;
	}

	@Override
	public void initialize() {
		call("initialize", () -> {
			NodeDocuments.createTtlIndex(this.deadNodeRetention, this.nodes::createIndex, this.database::runCommand,
					this.nodes.namespace());
			return null;
		});
		Unsharded.check(List.of(this.nodes.namespace(), this.leases.namespace()), (namespace) -> call("collStats",
				() -> this.database.collection(namespace.getCollectionName()).aggregate(Unsharded.pipeline())));
	}

	@Override
	public Optional<Instant> serverTime() {
		return call("serverTime", () -> this.serverTime.ask(this.database::runCommand));
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		long sent = System.nanoTime();
		return call("acquire",
				() -> began(
						MembershipDocuments.unlessTaken(() -> this.leases.findOneAndUpdate(
								LeaseDocuments.acquireFilter(group, holder, expiredBefore, expiresAt),
								LeaseDocuments.acquireUpdate(holder, expiresAt), LeaseDocuments.acquireOptions())),
						sent));
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		long sent = System.nanoTime();
		return call("acquire",
				() -> began(
						MembershipDocuments.unlessTaken(() -> this.leases.findOneAndUpdate(
								LeaseDocuments.takeOverFilter(group, holder, from, epoch, expiredBefore, expiresAt),
								LeaseDocuments.acquireUpdate(holder, expiresAt), LeaseDocuments.acquireOptions())),
						sent));
	}

	/**
	 * The term a lease taken begins, once its term document says so: that write waits for
	 * the older term's open fenced transactions, within what is left of the operation
	 * timeout. Until it succeeds the acquisition has not (a later one by this holder
	 * takes the lease again, with a newer epoch).
	 */
	private Optional<LeaseRecord> began(Optional<Document> taken, long sent) {
		if (taken.isPresent()) {
			LeaseRecord lease = LeaseDocuments.toLease(taken.get());
			long left = this.operationTimeout.toNanos() - (System.nanoTime() - sent);
			this.terms.withTimeout(Math.max(1, left))
				.updateOne(TermDocuments.of(lease.group()), TermDocuments.began(lease.epoch()), TermDocuments.upsert());
			return Optional.of(lease);
		}
		return Optional.empty();
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		return call("renew",
				() -> Optional.ofNullable(LeaseDocuments
					.renewedAt(this.leases.findOneAndUpdate(LeaseDocuments.renewFilter(group, holder, epoch),
							LeaseDocuments.renewUpdate(expiresAt, fires), LeaseDocuments.renewOptions()))));
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		if (epochs.isEmpty()) {
			return 0;
		}
		if (fires.isEmpty()) {
			return call("renewAll",
					() -> this.leases
						.updateMany(LeaseDocuments.renewAllFilter(holder, epochs, expiresAt),
								LeaseDocuments.renewUpdate(expiresAt))
						.getMatchedCount());
		}
		return call("renewAll", () -> this.leases.bulkWrite(LeaseDocuments.renewAll(holder, epochs, expiresAt, fires))
			.getMatchedCount());
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		return call("release",
				() -> this.leases
					.updateOne(LeaseDocuments.heldBy(group, holder, epoch), LeaseDocuments.releaseUpdate(fires),
							new UpdateOptions())
					.getMatchedCount() == 1);
	}

	@Override
	public long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		if (epochs.isEmpty()) {
			return 0;
		}
		if (fires.isEmpty()) {
			return call("releaseAll",
					() -> this.leases
						.updateMany(LeaseDocuments.releaseAllFilter(holder, epochs), LeaseDocuments.releaseUpdate())
						.getMatchedCount());
		}
		return call("releaseAll",
				() -> this.leases.bulkWrite(LeaseDocuments.releaseAll(holder, epochs, fires)).getMatchedCount());
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		// local: the winner's write, which a majority read shows only once a majority has
		// it
		return call("findLease",
				() -> Optional
					.ofNullable(this.leases.withReadConcern(ReadConcern.LOCAL).first(MembershipDocuments.byId(group)))
					.map(LeaseDocuments::toLease));
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		return call("findLeases",
				() -> RosterDocuments.toReading(
						this.leases.find(Documents.Find.of(RosterDocuments.leasesAndRoster(groups, rosterVersion))
							.projection(RosterDocuments.withoutMembers())
							.batchSize(RosterDocuments.batchFor(groups)))));
	}

	@Override
	public Optional<Roster> findRoster() {
		return call("findRoster", () -> Optional.ofNullable(this.leases.first(MembershipDocuments.byId(Roster.ID)))
			.map(RosterDocuments::toRoster));
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		return call("writeRoster",
				() -> MembershipDocuments
					.unlessTaken(
							() -> this.leases.findOneAndUpdate(RosterDocuments.rosterFilter(epoch, sequence),
									RosterDocuments.rosterUpdate(members, changes, assignments, keeperNodeId, epoch,
											sequence),
									RosterDocuments.rosterOptions()))
					.map((after) -> OptionalLong.of(RosterDocuments.version(after)))
					.orElse(OptionalLong.empty()));
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		return call("heartbeat", () -> NodeDocuments.heartbeat(node, this.nodes::findOneAndUpdate));
	}

	@Override
	public List<NodeRecord> findNodes() {
		return call("findNodes", () -> {
			List<Document> found = this.nodes
				.find(Documents.Find.of(new Document()).batchSize(NodeDocuments.batchFor(this.lastNodeCount)));
			this.lastNodeCount = found.size();
			return found.stream().map(NodeDocuments::toNode).toList();
		});
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		call("removeNode", () -> this.nodes.deleteOne(NodeDocuments.nodeOf(nodeId, incarnation)));
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return call("removeDeadNodes",
				() -> this.nodes.deleteMany(NodeDocuments.notSeenSince(cutoff)).getDeletedCount());
	}

	private <T> T call(String operation, Supplier<T> action) {
		return this.database.call(operation, action);
	}

}
