package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
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
 * Nodes and leases in two MongoDB collections; the roster is one more document among the
 * leases ({@code _id} {@code "_roster"}), so that a member reads its groups' leases and a
 * changed roster in one query.
 * <p>
 * Leases: one document per group keyed by {@code _id}. Acquisition is a conditional
 * upsert on {@code {_id: group, $or: [{expiresAt: {$lt: now}}, {holder is me}]}}: when
 * another holder's unexpired lease exists the filter matches nothing, the upsert tries to
 * insert a second document with the same {@code _id}, and the unique {@code _id} index
 * (which MongoDB always has) answers with a duplicate-key error. Safety therefore depends
 * on no index we create. Lease writes use a majority write concern and lease reads
 * majority read concern, so a lease survives a primary failover. Every read goes to the
 * primary, whatever read preference the application's client has: a lagging secondary
 * would show old heartbeats (live nodes taken for dead) and old leases.
 * <p>
 * Every call carries a client-side operation timeout (driver CSOT) shorter than the
 * lease, so a hung server cannot hold the election loop: server selection, connection
 * checkout and the round trip all count against it.
 */
public class MongoMembershipStore implements MembershipStore {

	private final MongoCollection<Document> nodes;

	private final MongoCollection<Document> leases;

	/**
	 * One document per lease with its newest term's epoch, written as each term begins:
	 * {@link TermDocuments}.
	 */
	private final MongoCollection<Document> terms;

	private final Duration operationTimeout;

	private final MongoStoreSettings settings;

	private final MongoDatabase database;

	private final Duration deadNodeRetention;

	private final ServerTime serverTime = new ServerTime();

	/**
	 * How many node documents the last read found: the next read's batch size follows it.
	 */
	private volatile int lastNodeCount;

	public MongoMembershipStore(MongoDatabase database, MongoStoreSettings settings) {
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
	}

	/** The settings of this store. */
	public MongoStoreSettings settings() {
		return this.settings;
	}

	@Override
	public void initialize() {
		call("initialize", () -> {
			NodeDocuments.createTtlIndex(this.deadNodeRetention, this.nodes::createIndex, this.database::runCommand,
					this.nodes.getNamespace());
			return null;
		});
		Unsharded.check(List.of(this.nodes.getNamespace(), this.leases.getNamespace()),
				(namespace) -> call("collStats",
						() -> this.database.getCollection(namespace.getCollectionName())
							.aggregate(Unsharded.pipeline())
							.into(new ArrayList<>())));
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
			this.terms.withTimeout(Math.max(1, left), TimeUnit.NANOSECONDS)
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
		return call("renewAll",
				() -> this.leases
					.bulkWrite(LeaseDocuments.renewAll(holder, epochs, expiresAt, fires),
							new BulkWriteOptions().ordered(false))
					.getMatchedCount());
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		return call("release",
				() -> this.leases
					.updateOne(LeaseDocuments.heldBy(group, holder, epoch), LeaseDocuments.releaseUpdate(fires))
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
				() -> this.leases
					.bulkWrite(LeaseDocuments.releaseAll(holder, epochs, fires), new BulkWriteOptions().ordered(false))
					.getMatchedCount());
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		// local: the winner's write, which a majority read shows only once a majority has
		// it
		return call("findLease",
				() -> Optional.ofNullable(
						this.leases.withReadConcern(ReadConcern.LOCAL).find(MembershipDocuments.byId(group)).first())
					.map(LeaseDocuments::toLease));
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		return call("findLeases",
				() -> RosterDocuments.toReading(this.leases.find(RosterDocuments.leasesAndRoster(groups, rosterVersion))
					.projection(RosterDocuments.withoutMembers())
					.batchSize(RosterDocuments.batchFor(groups))));
	}

	@Override
	public Optional<Roster> findRoster() {
		return call("findRoster",
				() -> Optional.ofNullable(this.leases.find(MembershipDocuments.byId(Roster.ID)).first())
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
			List<NodeRecord> result = new ArrayList<>();
			for (Document d : this.nodes.find().batchSize(NodeDocuments.batchFor(this.lastNodeCount))) {
				result.add(NodeDocuments.toNode(d));
			}
			this.lastNodeCount = result.size();
			return result;
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

	private static <T> T call(String operation, Supplier<T> action) {
		return MembershipDocuments.call(operation, action);
	}

}
