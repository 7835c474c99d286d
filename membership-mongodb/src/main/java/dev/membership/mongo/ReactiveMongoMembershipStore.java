package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.reactivestreams.client.MongoCollection;
import com.mongodb.reactivestreams.client.MongoDatabase;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

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
import dev.membership.spi.StoreException;

/**
 * The same store as {@link MongoMembershipStore}, on the application's reactive driver,
 * so that a reactive application needs no blocking driver and no second connection pool.
 * Each call blocks only the membership node's own loop thread (never a reactive one),
 * bounded by the driver's operation timeout like the blocking store.
 */
public class ReactiveMongoMembershipStore implements MembershipStore {

	private final MongoDatabase database;

	private final MongoCollection<Document> nodes;

	private final MongoCollection<Document> leases;

	/**
	 * One document per lease with its newest term's epoch, written as each term begins:
	 * {@link TermDocuments}.
	 */
	private final MongoCollection<Document> terms;

	private final Duration operationTimeout;

	private final MongoStoreSettings settings;

	private final Duration deadNodeRetention;

	/**
	 * A little longer than the driver's own timeout, which is what normally ends a call;
	 * still shorter than a lease.
	 */
	private final Duration blockAtMost;

	private final ServerTime serverTime = new ServerTime();

	/**
	 * How many node documents the last read found: the next read's batch size follows it.
	 */
	private volatile int lastNodeCount;

	public ReactiveMongoMembershipStore(MongoDatabase database, MongoStoreSettings settings) {
		long timeoutMillis = settings.operationTimeout().toMillis();
		// every read from the primary, whatever the application's client says
		// (secondaryPreferred is common)
		this.database = database.withTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
			.withReadPreference(ReadPreference.primary());
		this.nodes = this.database.getCollection(settings.nodesCollection());
		this.leases = this.database.getCollection(settings.leasesCollection())
			.withWriteConcern(settings.leaseWriteConcern())
			.withReadConcern(ReadConcern.MAJORITY);
		this.terms = this.database.getCollection(settings.termsCollection())
			.withWriteConcern(settings.leaseWriteConcern());
		this.operationTimeout = settings.operationTimeout();
		this.settings = settings;
		this.deadNodeRetention = settings.deadNodeRetention();
		this.blockAtMost = settings.operationTimeout().plusMillis(250);
	}

	/** The settings of this store. */
	public MongoStoreSettings settings() {
		return this.settings;
	}

	@Override
	public void initialize() {
		call("initialize", () -> {
			NodeDocuments.createTtlIndex(this.deadNodeRetention,
					(keys, options) -> one(this.nodes.createIndex(keys, options)),
					(command) -> one(this.database.runCommand(command)), this.nodes.getNamespace());
			return null;
		});
		Unsharded.check(List.of(this.nodes.getNamespace(), this.leases.getNamespace()),
				(namespace) -> call("collStats", () -> {
					List<Document> all = Flux
						.from(this.database.getCollection(namespace.getCollectionName())
							.aggregate(Unsharded.pipeline()))
						.collectList()
						.block(this.blockAtMost);
					return (all != null) ? all : List.<Document>of();
				}));
	}

	@Override
	public Optional<Instant> serverTime() {
		return call("serverTime", () -> this.serverTime.ask((command) -> one(this.database.runCommand(command))));
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		long sent = System.nanoTime();
		return call("acquire",
				() -> began(
						MembershipDocuments.unlessTaken(() -> one(this.leases.findOneAndUpdate(
								LeaseDocuments.acquireFilter(group, holder, expiredBefore, expiresAt),
								LeaseDocuments.acquireUpdate(holder, expiresAt), LeaseDocuments.acquireOptions()))),
						sent));
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		long sent = System.nanoTime();
		return call("acquire",
				() -> began(
						MembershipDocuments.unlessTaken(() -> one(this.leases.findOneAndUpdate(
								LeaseDocuments.takeOverFilter(group, holder, from, epoch, expiredBefore, expiresAt),
								LeaseDocuments.acquireUpdate(holder, expiresAt), LeaseDocuments.acquireOptions()))),
						sent));
	}

	/**
	 * As {@link MongoMembershipStore}'s: the term begins once its term document says so,
	 * within the timeout left.
	 */
	private Optional<LeaseRecord> began(Optional<Document> taken, long sent) {
		if (taken.isPresent()) {
			LeaseRecord lease = LeaseDocuments.toLease(taken.get());
			long left = Math.max(1, this.operationTimeout.toNanos() - (System.nanoTime() - sent));
			Mono.from(this.terms.withTimeout(left, TimeUnit.NANOSECONDS)
				.updateOne(TermDocuments.of(lease.group()), TermDocuments.began(lease.epoch()), TermDocuments.upsert()))
				.block(Duration.ofNanos(left).plusMillis(250));
			return Optional.of(lease);
		}
		return Optional.empty();
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		return call("renew",
				() -> Optional.ofNullable(LeaseDocuments
					.renewedAt(one(this.leases.findOneAndUpdate(LeaseDocuments.renewFilter(group, holder, epoch),
							LeaseDocuments.renewUpdate(expiresAt, fires), LeaseDocuments.renewOptions())))));
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		if (epochs.isEmpty()) {
			return 0;
		}
		if (fires.isEmpty()) {
			return call("renewAll",
					() -> one(this.leases.updateMany(LeaseDocuments.renewAllFilter(holder, epochs, expiresAt),
							LeaseDocuments.renewUpdate(expiresAt)))
						.getMatchedCount());
		}
		return call("renewAll",
				() -> one(this.leases.bulkWrite(LeaseDocuments.renewAll(holder, epochs, expiresAt, fires),
						new BulkWriteOptions().ordered(false)))
					.getMatchedCount());
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		return call("release", () -> one(
				this.leases.updateOne(LeaseDocuments.heldBy(group, holder, epoch), LeaseDocuments.releaseUpdate(fires)))
			.getMatchedCount() == 1);
	}

	@Override
	public long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		if (epochs.isEmpty()) {
			return 0;
		}
		if (fires.isEmpty()) {
			return call("releaseAll", () -> one(this.leases.updateMany(LeaseDocuments.releaseAllFilter(holder, epochs),
					LeaseDocuments.releaseUpdate()))
				.getMatchedCount());
		}
		return call("releaseAll", () -> one(this.leases.bulkWrite(LeaseDocuments.releaseAll(holder, epochs, fires),
				new BulkWriteOptions().ordered(false)))
			.getMatchedCount());
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		// local: the winner's write, which a majority read shows only once a majority has
		// it
		return call("findLease",
				() -> Optional.ofNullable(one(
						this.leases.withReadConcern(ReadConcern.LOCAL).find(MembershipDocuments.byId(group)).first()))
					.map(LeaseDocuments::toLease));
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		return call("findLeases", () -> {
			List<Document> documents = Flux
				.from(this.leases.find(RosterDocuments.leasesAndRoster(groups, rosterVersion))
					.projection(RosterDocuments.withoutMembers())
					.batchSize(RosterDocuments.batchFor(groups)))
				.collectList()
				.block(this.blockAtMost);
			return RosterDocuments.toReading((documents != null) ? documents : List.of());
		});
	}

	@Override
	public Optional<Roster> findRoster() {
		return call("findRoster",
				() -> Optional.ofNullable(one(this.leases.find(MembershipDocuments.byId(Roster.ID)).first()))
					.map(RosterDocuments::toRoster));
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		return call("writeRoster",
				() -> MembershipDocuments
					.unlessTaken(
							() -> one(this.leases.findOneAndUpdate(RosterDocuments.rosterFilter(epoch, sequence),
									RosterDocuments.rosterUpdate(members, changes, assignments, keeperNodeId, epoch,
											sequence),
									RosterDocuments.rosterOptions())))
					.map((after) -> OptionalLong.of(RosterDocuments.version(after)))
					.orElse(OptionalLong.empty()));
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		return call("heartbeat", () -> NodeDocuments.heartbeat(node,
				(filter, update, options) -> one(this.nodes.findOneAndUpdate(filter, update, options))));
	}

	@Override
	public List<NodeRecord> findNodes() {
		return call("findNodes", () -> {
			List<Document> documents = Flux
				.from(this.nodes.find().batchSize(NodeDocuments.batchFor(this.lastNodeCount)))
				.collectList()
				.block(this.blockAtMost);
			this.lastNodeCount = (documents != null) ? documents.size() : 0;
			return (documents != null) ? documents.stream().map(NodeDocuments::toNode).toList() : List.<NodeRecord>of();
		});
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		call("removeNode", () -> one(this.nodes.deleteOne(NodeDocuments.nodeOf(nodeId, incarnation))));
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return call("removeDeadNodes",
				() -> one(this.nodes.deleteMany(NodeDocuments.notSeenSince(cutoff))).getDeletedCount());
	}

	/** The publisher's one result (null when it completes empty), on this thread. */
	private <T> T one(Publisher<T> publisher) {
		return Mono.from(publisher).block(this.blockAtMost);
	}

	private static <T> T call(String operation, Supplier<T> action) {
		try {
			return MembershipDocuments.call(operation, action);
		}
		catch (RuntimeException ex) {
			if (Exceptions.unwrap(ex) instanceof InterruptedException) {
				// the node is stopping: keep the flag for its loop
				Thread.currentThread().interrupt();
				throw new StoreException("MongoDB " + operation + " interrupted", ex);
			}
			if (ex instanceof IllegalStateException && String.valueOf(ex.getMessage()).startsWith("Timeout")) {
				// Reactor's own bound, should the driver's timeout not end the call first
				throw new StoreException("MongoDB " + operation + " failed: " + ex.getMessage(), ex);
			}
			throw ex;
		}
	}

}
