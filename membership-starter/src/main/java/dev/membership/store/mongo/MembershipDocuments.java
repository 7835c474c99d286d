package dev.membership.store.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoWriteException;
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
import dev.membership.store.NodeRecord;
import dev.membership.store.StoreException;

/**
 * The documents, filters and updates of the MongoDB stores, shared by the blocking and the reactive one so that both
 * write exactly the same thing. See {@link MongoMembershipStore} for why each operation is safe.
 */
final class MembershipDocuments {

	static final int DUPLICATE_KEY = 11000;

	private static final int COMMAND_NOT_FOUND = 59;

	private static final Logger log = LoggerFactory.getLogger(MembershipDocuments.class);

	private static final Document HELLO = new Document("hello", 1);

	private static final Document IS_MASTER = new Document("isMaster", 1);

	private static final Date RELEASED = new Date(0);

	private MembershipDocuments() {
	}

	/**
	 * Creates the TTL index on the nodes' {@code updatedAt} with {@code create(keys, options)}; an existing index with
	 * another TTL is kept, since the leader's own cleanup runs anyway.
	 */
	static void createTtlIndex(Duration deadNodeRetention, BiConsumer<Bson, IndexOptions> create, Object namespace) {
		long ttlSeconds = Math.max(1, deadNodeRetention.toSeconds());
		try {
			create.accept(Indexes.ascending("updatedAt"),
					new IndexOptions().name("membership_node_ttl").expireAfter(ttlSeconds, TimeUnit.SECONDS));
		}
		catch (MongoCommandException ex) {
			log.warn("Kept the existing TTL index on {}: {}", namespace, ex.getErrorMessage());
		}
	}

	/**
	 * The server's clock from its {@code hello} reply; servers before 4.4.2 and some wire-compatible servers only
	 * know the legacy {@code isMaster}, which is used from the first "command not found" on.
	 */
	static final class ServerTime {

		private volatile boolean helloUnsupported;

		Instant ask(Function<Document, Document> runCommand) {
			Document reply = null;
			if (!this.helloUnsupported) {
				try {
					reply = runCommand.apply(HELLO);
				}
				catch (MongoCommandException ex) {
					if (ex.getErrorCode() != COMMAND_NOT_FOUND) {
						throw ex;
					}
					this.helloUnsupported = true;
				}
			}
			if (reply == null) {
				reply = runCommand.apply(IS_MASTER);
			}
			Date localTime = reply.getDate("localTime");
			if (localTime == null) {
				throw new StoreException("The server's hello reply has no localTime", null);
			}
			return localTime.toInstant();
		}

	}

	/**
	 * Free, expired, or already this holder's with an earlier expiry: a request that reaches the server late (after a
	 * newer acquisition or renewal of the same holder) must not start a term behind its back.
	 */
	static Bson acquireFilter(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		return Filters.and(Filters.eq("_id", group), Filters.or(Filters.lt("expiresAt", Date.from(expiredBefore)),
				Filters.and(isHeldBy(holder), Filters.lt("expiresAt", Date.from(expiresAt)))));
	}

	static Bson acquireUpdate(Holder holder, Instant expiresAt) {
		return Updates.combine(Updates.set("holderNodeId", holder.nodeId()),
				Updates.set("holderIncarnation", holder.incarnation()), Updates.set("holderAddress", holder.address()),
				Updates.set("expiresAt", Date.from(expiresAt)), Updates.currentDate("acquiredAt"),
				Updates.inc("epoch", 1L));
	}

	static FindOneAndUpdateOptions acquireOptions() {
		return new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER);
	}

	/** Never moves the expiry back: a renewal that reaches the server after a later one must not shorten the lease. */
	static Bson renewUpdate(Instant expiresAt) {
		return Updates.max("expiresAt", Date.from(expiresAt));
	}

	static Bson releaseUpdate() {
		return Updates.combine(Updates.set("expiresAt", RELEASED), Updates.currentDate("releasedAt"));
	}

	/** Held with the epoch and not released: a renewal that reaches the server after the release must not revive it. */
	static Bson renewFilter(String group, Holder holder, long epoch) {
		return Filters.and(heldBy(group, holder, epoch), Filters.gt("expiresAt", RELEASED));
	}

	static Bson heldBy(String group, Holder holder, long epoch) {
		return Filters.and(Filters.eq("_id", group), isHeldBy(holder), Filters.eq("epoch", epoch));
	}

	private static Bson isHeldBy(Holder holder) {
		return Filters.and(Filters.eq("holderNodeId", holder.nodeId()),
				Filters.eq("holderIncarnation", holder.incarnation()));
	}

	static Bson heartbeatUpdate(NodeRecord node) {
		Document leading = new Document();
		node.leading()
			.forEach((group, claim) -> leading.append(group,
					new Document("epoch", claim.epoch()).append("expiresAt", Date.from(claim.expiresAt()))));
		return Updates.combine(Updates.set("incarnation", node.incarnation()), Updates.set("address", node.address()),
				Updates.set("startedAt", (node.startedAt() != null) ? Date.from(node.startedAt()) : null),
				Updates.set("groups", node.groups()), Updates.set("leading", leading),
				Updates.currentDate("updatedAt"));
	}

	static FindOneAndUpdateOptions heartbeatOptions() {
		return new FindOneAndUpdateOptions().upsert(true)
			.returnDocument(ReturnDocument.BEFORE)
			.projection(Projections.include("incarnation"));
	}

	static Bson byId(String id) {
		return Filters.eq("_id", id);
	}

	static Bson nodeOf(String nodeId, String incarnation) {
		return Filters.and(Filters.eq("_id", nodeId), Filters.eq("incarnation", incarnation));
	}

	static Bson notSeenSince(Instant cutoff) {
		return Filters.lt("updatedAt", Date.from(cutoff));
	}

	static boolean isDuplicateKey(MongoException ex) {
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

	/** Runs one store operation, turning the driver's failures into {@link StoreException}. */
	static <T> T call(String operation, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (MongoException ex) {
			throw new StoreException("MongoDB " + operation + " failed: " + ex.getMessage(), ex);
		}
	}

}
