package dev.membership.store.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
import com.mongodb.ReadConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.store.Holder;
import dev.membership.store.LeaderClaim;
import dev.membership.store.LeaseRecord;
import dev.membership.store.MembershipStore;
import dev.membership.store.NodeRecord;
import dev.membership.store.StoreException;

/**
 * Nodes and leases in two MongoDB collections.
 * <p>
 * Leases: one document per group keyed by {@code _id}. Acquisition is a conditional upsert on
 * {@code {_id: group, $or: [{expiresAt: {$lt: now}}, {holder is me}]}}: when another holder's unexpired lease exists
 * the filter matches nothing, the upsert tries to insert a second document with the same {@code _id}, and the unique
 * {@code _id} index (which MongoDB always has) answers with a duplicate-key error. Safety therefore depends on no
 * index we create. Lease writes use the configured write concern (majority by default) and lease reads majority read
 * concern, so a lease survives a primary failover.
 * <p>
 * Every call carries a client-side operation timeout (driver CSOT) shorter than the lease, so a hung server cannot
 * hold the election loop: server selection, connection checkout and the round trip all count against it.
 */
public class MongoMembershipStore implements MembershipStore {

	private static final Logger log = LoggerFactory.getLogger(MongoMembershipStore.class);

	static final int DUPLICATE_KEY = 11000;

	private static final int COMMAND_NOT_FOUND = 59;

	private static final Date RELEASED = new Date(0);

	private final MongoCollection<Document> nodes;

	private final MongoCollection<Document> leases;

	private final MongoDatabase database;

	private final Duration deadNodeRetention;

	private volatile boolean helloUnsupported;

	public MongoMembershipStore(MongoDatabase database, MongoStoreSettings settings) {
		long timeoutMillis = settings.operationTimeout().toMillis();
		this.database = database.withTimeout(timeoutMillis, TimeUnit.MILLISECONDS);
		this.nodes = this.database.getCollection(settings.nodesCollection());
		this.leases = this.database.getCollection(settings.leasesCollection())
			.withWriteConcern(settings.leaseWriteConcern())
			.withReadConcern(ReadConcern.MAJORITY);
		this.deadNodeRetention = settings.deadNodeRetention();
	}

	@Override
	public void initialize() {
		call("initialize", () -> {
			long ttlSeconds = Math.max(1, this.deadNodeRetention.toSeconds());
			try {
				this.nodes.createIndex(Indexes.ascending("updatedAt"),
						new IndexOptions().name("membership_node_ttl").expireAfter(ttlSeconds, TimeUnit.SECONDS));
			}
			catch (MongoCommandException ex) {
				// an existing index with another TTL: keep it, the leader's own cleanup still runs
				log.warn("Kept the existing TTL index on {}: {}", this.nodes.getNamespace(), ex.getErrorMessage());
			}
			return null;
		});
	}

	@Override
	public Instant serverTime() {
		return call("serverTime", () -> {
			Document reply = helloReply();
			Date localTime = reply.getDate("localTime");
			if (localTime == null) {
				throw new StoreException("The server's hello reply has no localTime", null);
			}
			return localTime.toInstant();
		});
	}

	private Document helloReply() {
		if (!this.helloUnsupported) {
			try {
				return this.database.runCommand(new Document("hello", 1));
			}
			catch (MongoCommandException ex) {
				if (ex.getErrorCode() != COMMAND_NOT_FOUND) {
					throw ex;
				}
				// servers before 4.4.2 and some wire-compatible servers only know the legacy name
				this.helloUnsupported = true;
			}
		}
		return this.database.runCommand(new Document("isMaster", 1));
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		return call("acquire", () -> {
			Bson filter = Filters.and(Filters.eq("_id", group),
					Filters.or(Filters.lt("expiresAt", Date.from(expiredBefore)), isHeldBy(holder)));
			Bson update = Updates.combine(Updates.set("holderNodeId", holder.nodeId()),
					Updates.set("holderIncarnation", holder.incarnation()),
					Updates.set("holderAddress", holder.address()), Updates.set("expiresAt", Date.from(expiresAt)),
					Updates.currentDate("acquiredAt"), Updates.inc("epoch", 1L));
			try {
				Document after = this.leases.findOneAndUpdate(filter, update,
						new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER));
				return Optional.ofNullable(after).map(MongoMembershipStore::toLease);
			}
			catch (MongoCommandException | MongoWriteException ex) {
				if (isDuplicateKey(ex)) {
					return Optional.empty();
				}
				throw ex;
			}
		});
	}

	@Override
	public boolean renew(String group, Holder holder, long epoch, Instant expiresAt) {
		return call("renew", () -> this.leases
			.updateOne(heldBy(group, holder, epoch), Updates.set("expiresAt", Date.from(expiresAt)))
			.getMatchedCount() == 1);
	}

	@Override
	public boolean release(String group, Holder holder, long epoch) {
		return call("release", () -> this.leases
			.updateOne(heldBy(group, holder, epoch),
					Updates.combine(Updates.set("expiresAt", RELEASED), Updates.currentDate("releasedAt")))
			.getMatchedCount() == 1);
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		return call("findLease",
				() -> Optional.ofNullable(this.leases.find(Filters.eq("_id", group)).first())
					.map(MongoMembershipStore::toLease));
	}

	@Override
	public String heartbeat(NodeRecord node) {
		return call("heartbeat", () -> {
			Document leading = new Document();
			node.leading()
				.forEach((group, claim) -> leading.append(group, new Document("epoch", claim.epoch())
					.append("expiresAt", Date.from(claim.expiresAt()))));
			Bson update = Updates.combine(Updates.set("incarnation", node.incarnation()),
					Updates.set("address", node.address()),
					Updates.set("startedAt", (node.startedAt() != null) ? Date.from(node.startedAt()) : null),
					Updates.set("groups", node.groups()), Updates.set("leading", leading),
					Updates.currentDate("updatedAt"));
			Document before = this.nodes.findOneAndUpdate(Filters.eq("_id", node.nodeId()), update,
					new FindOneAndUpdateOptions().upsert(true)
						.returnDocument(ReturnDocument.BEFORE)
						.projection(Projections.include("incarnation")));
			return (before != null) ? before.getString("incarnation") : null;
		});
	}

	@Override
	public List<NodeRecord> findNodes() {
		return call("findNodes", () -> {
			List<NodeRecord> result = new ArrayList<>();
			for (Document d : this.nodes.find()) {
				result.add(toNode(d));
			}
			return result;
		});
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		call("removeNode", () -> this.nodes
			.deleteOne(Filters.and(Filters.eq("_id", nodeId), Filters.eq("incarnation", incarnation))));
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return call("removeDeadNodes",
				() -> this.nodes.deleteMany(Filters.lt("updatedAt", Date.from(cutoff))).getDeletedCount());
	}

	private static Bson isHeldBy(Holder holder) {
		return Filters.and(Filters.eq("holderNodeId", holder.nodeId()),
				Filters.eq("holderIncarnation", holder.incarnation()));
	}

	private static Bson heldBy(String group, Holder holder, long epoch) {
		return Filters.and(Filters.eq("_id", group), isHeldBy(holder), Filters.eq("epoch", epoch));
	}

	private static boolean isDuplicateKey(MongoException ex) {
		if (ex instanceof MongoWriteException write) {
			return write.getError().getCategory() == ErrorCategory.DUPLICATE_KEY;
		}
		return ex.getCode() == DUPLICATE_KEY;
	}

	static LeaseRecord toLease(Document d) {
		String nodeId = d.getString("holderNodeId");
		Holder holder = (nodeId != null)
				? new Holder(nodeId, String.valueOf(d.getString("holderIncarnation")), d.getString("holderAddress"))
				: null;
		Number epoch = d.get("epoch", Number.class);
		return new LeaseRecord(d.getString("_id"), holder, (epoch != null) ? epoch.longValue() : 0,
				instant(d.getDate("expiresAt")), instant(d.getDate("acquiredAt")));
	}

	static NodeRecord toNode(Document d) {
		Map<String, LeaderClaim> leading = new HashMap<>();
		Document claims = d.get("leading", Document.class);
		if (claims != null) {
			for (String group : claims.keySet()) {
				Document claim = claims.get(group, Document.class);
				Number epoch = claim.get("epoch", Number.class);
				leading.put(group, new LeaderClaim((epoch != null) ? epoch.longValue() : 0,
						instant(claim.getDate("expiresAt"))));
			}
		}
		List<String> groups = d.getList("groups", String.class);
		return new NodeRecord(d.getString("_id"), d.getString("incarnation"), d.getString("address"),
				instant(d.getDate("startedAt")), instant(d.getDate("updatedAt")), groups, leading);
	}

	private static Instant instant(Date date) {
		return (date != null) ? date.toInstant() : null;
	}

	private static <T> T call(String operation, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (MongoException ex) {
			throw new StoreException("MongoDB " + operation + " failed: " + ex.getMessage(), ex);
		}
	}

}
