package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoNamespace;
import com.mongodb.MongoWriteException;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.codecs.DocumentCodec;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.liveness.Member;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RosterTooLargeException;
import dev.membership.spi.StoreException;

/**
 * The documents, filters and updates of the MongoDB stores, shared by the blocking and the reactive one so that both
 * write exactly the same thing. See {@link MongoMembershipStore} for why each operation is safe.
 */
final class MembershipDocuments {

	static final int DUPLICATE_KEY = 11000;

	private static final int COMMAND_NOT_FOUND = 59;

	/** An index of these keys exists with other options (here: another TTL), or under another name. */
	private static final int INDEX_OPTIONS_CONFLICT = 85;

	/** An index of this name exists with other keys. */
	private static final int INDEX_KEY_SPECS_CONFLICT = 86;

	private static final String TTL_INDEX = "membership_node_ttl";

	private static final Logger log = LoggerFactory.getLogger(MembershipDocuments.class);

	private static final Document HELLO = new Document("hello", 1);

	private static final Document IS_MASTER = new Document("isMaster", 1);

	private static final Date RELEASED = new Date(0);

	/**
	 * What the roster's member list and kept changes may take: MongoDB's 16 MiB document limit (error 17419 past it)
	 * less 1 MiB for the rest of the document and the update command around it.
	 */
	static final int ROSTER_BUDGET_BYTES = 15 * 1024 * 1024;

	private static final Codec<Document> DOCUMENTS = new DocumentCodec();

	private MembershipDocuments() {
	}

	/**
	 * Creates the TTL index on the nodes' {@code updatedAt} with {@code create(keys, options)}. When the index exists
	 * with another TTL (the retention was changed), {@code collMod} sets the new one through {@code runCommand}; an index
	 * of that name on other keys is left alone. Either way the keeper's own cleanup goes on, so only those conflicts
	 * are tolerated (and said at WARN when they cannot be mended); any other failure, such as a missing privilege, is
	 * the caller's to report.
	 */
	static void createTtlIndex(Duration deadNodeRetention, BiConsumer<Bson, IndexOptions> create,
			Function<Document, Document> runCommand, MongoNamespace namespace) {
		long ttlSeconds = Math.max(1, deadNodeRetention.toSeconds());
		Bson keys = Indexes.ascending("updatedAt");
		try {
			create.accept(keys, new IndexOptions().name(TTL_INDEX).expireAfter(ttlSeconds, TimeUnit.SECONDS));
		}
		catch (MongoCommandException ex) {
			if (ex.getErrorCode() == INDEX_KEY_SPECS_CONFLICT) {
				log.warn("Kept the index {} on {}: it has other keys than {updatedAt: 1} ({}); dead node documents are "
						+ "still removed by the keeper of the roster", TTL_INDEX, namespace, ex.getErrorMessage());
				return;
			}
			if (ex.getErrorCode() != INDEX_OPTIONS_CONFLICT) {
				throw ex;
			}
			changeTtl(ttlSeconds, runCommand, namespace);
		}
	}

	private static void changeTtl(long ttlSeconds, Function<Document, Document> runCommand,
			MongoNamespace namespace) {
		Document collMod = new Document("collMod", namespace.getCollectionName()).append("index",
				new Document("keyPattern", new Document("updatedAt", 1)).append("expireAfterSeconds", ttlSeconds));
		try {
			runCommand.apply(collMod);
			log.info("Changed the TTL of dead node documents on {} to {} s (membership.dead-node-retention)",
					namespace, ttlSeconds);
		}
		catch (MongoCommandException ex) {
			log.warn("Could not change the TTL index on {} to {} s ({}); it keeps its old TTL until changed with "
					+ "collMod, and dead node documents are still removed by the keeper of the roster", namespace,
					ttlSeconds, ex.getErrorMessage());
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
				Updates.currentDate("renewedAt"), Updates.inc("epoch", 1L));
	}

	static FindOneAndUpdateOptions acquireOptions() {
		return new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER);
	}

	/**
	 * Never moves the expiry back: a renewal that reaches the server after a later one must not shorten the lease. The
	 * stamp is the holder's liveness and the caller's clock sample.
	 */
	static Bson renewUpdate(Instant expiresAt) {
		return Updates.combine(Updates.max("expiresAt", Date.from(expiresAt)), Updates.currentDate("renewedAt"));
	}

	static FindOneAndUpdateOptions renewOptions() {
		return new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER)
			.projection(Projections.include("renewedAt"));
	}

	static Instant renewedAt(Document after) {
		return (after != null) ? instant(after.getDate("renewedAt")) : null;
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

	/**
	 * The node's own document: when it belongs to another incarnation, the upsert collides on {@code _id} (duplicate
	 * key), which tells the caller another process wrote it; then {@link #byId} takes it over.
	 */
	static Bson ownNode(NodeRecord node) {
		return nodeOf(node.nodeId(), node.incarnation());
	}

	static Bson heartbeatUpdate(NodeRecord node) {
		return Updates.combine(Updates.set("incarnation", node.incarnation()), Updates.set("address", node.address()),
				Updates.set("startedAt", (node.startedAt() != null) ? Date.from(node.startedAt()) : null),
				Updates.set("groups", node.groups()), Updates.currentDate("updatedAt"),
				Updates.unset("leading")); // what versions before the roster wrote
	}

	/** Returns the stamp just written: the caller's clock sample. */
	static FindOneAndUpdateOptions heartbeatOptions() {
		return new FindOneAndUpdateOptions().upsert(true)
			.returnDocument(ReturnDocument.AFTER)
			.projection(Projections.include("updatedAt"));
	}

	static Instant updatedAt(Document after) {
		return (after != null) ? instant(after.getDate("updatedAt")) : null;
	}

	/** The leases of {@code groups}, and the roster unless it still has {@code rosterVersion}. */
	static Bson leasesAndRoster(Collection<String> groups, long rosterVersion) {
		return Filters.or(Filters.in("_id", groups),
				Filters.and(Filters.eq("_id", Roster.ID), Filters.ne("version", rosterVersion)));
	}

	static LeaseReading toReading(Iterable<Document> documents) {
		Map<String, LeaseRecord> leases = new HashMap<>();
		Roster roster = null;
		for (Document d : documents) {
			if (Roster.ID.equals(d.get("_id"))) {
				roster = toRoster(d);
			}
			else {
				LeaseRecord lease = toLease(d);
				leases.put(lease.group(), lease);
			}
		}
		return new LeaseReading(leases, roster);
	}

	/** Written over an older epoch, or over an earlier write of the same term; else the upsert collides on _id. */
	static Bson rosterFilter(long epoch, long sequence) {
		return Filters.and(Filters.eq("_id", Roster.ID), Filters.or(Filters.lt("epoch", epoch),
				Filters.and(Filters.eq("epoch", epoch), Filters.lt("sequence", sequence))));
	}

	static Bson rosterUpdate(List<Member> members, List<RosterChange> changes, String keeperNodeId, long epoch,
			long sequence) {
		return rosterUpdate(members, changes, keeperNodeId, epoch, sequence, ROSTER_BUDGET_BYTES);
	}

	/**
	 * The roster's write, within {@code budget} bytes of BSON for its members and changes, as encoded: the oldest
	 * kept changes are left out first (a member behind them reads the whole roster once); a member list that does not
	 * fit alone is refused.
	 */
	static Bson rosterUpdate(List<Member> members, List<RosterChange> changes, String keeperNodeId, long epoch,
			long sequence, long budget) {
		List<Document> entries = toDocuments(members);
		long bytes = bsonSize(new Document("members", entries));
		if (bytes > budget) {
			throw new RosterTooLargeException(members.size(), bytes, budget);
		}
		List<Document> recent = new ArrayList<>(changes.size());
		List<Long> sizes = new ArrayList<>(changes.size());
		for (RosterChange change : changes) {
			Document c = new Document("from", change.fromVersion()).append("upserted", toDocuments(change.upserted()))
				.append("removed", toDocuments(change.removed()));
			recent.add(c);
			sizes.add(bsonSize(c));
		}
		long total = bytes + sizes.stream().mapToLong(Long::longValue).sum();
		while (total > budget) { // the oldest first: what is kept stays a run of changes up to this write
			total -= sizes.remove(0);
			recent.remove(0);
		}
		return Updates.combine(Updates.set("members", entries), Updates.set("changes", recent),
				Updates.set("keeperNodeId", keeperNodeId), Updates.set("epoch", epoch),
				Updates.set("sequence", sequence), Updates.currentDate("writtenAt"), Updates.inc("version", 1L));
	}

	/**
	 * What every member reads: the leases, and of the roster all but the member list. Named field by field rather
	 * than as "all but members", so that no server has to copy the member list to leave it out.
	 */
	static Bson withoutMembers() {
		return Projections.include("holderNodeId", "holderIncarnation", "holderAddress", "epoch", "expiresAt",
				"acquiredAt", "renewedAt", "version", "keeperNodeId", "writtenAt", "changes");
	}

	/** The size of {@code document} as BSON, as the server will hold it. */
	static long bsonSize(Document document) {
		return new RawBsonDocument(document, DOCUMENTS).getByteBuffer().remaining();
	}

	private static List<Document> toDocuments(List<Member> members) {
		List<Document> entries = new ArrayList<>(members.size());
		for (Member m : members) {
			entries.add(new Document("id", m.nodeId()).append("incarnation", m.incarnation())
				.append("address", m.address())
				.append("startedAt", date(m.startedAt()))
				.append("heartbeat", date(m.lastHeartbeat()))
				.append("groups", m.groups())
				.append("live", m.live()));
		}
		return entries;
	}

	private static List<Member> toMembers(List<Document> entries) {
		List<Member> members = new ArrayList<>();
		if (entries != null) {
			for (Document e : entries) {
				if (e.getString("id") == null) {
					continue; // not one this code wrote
				}
				members.add(new Member(e.getString("id"), e.getString("incarnation"), e.getString("address"),
						instant(e.getDate("startedAt")), instant(e.getDate("heartbeat")),
						e.getList("groups", String.class), Boolean.TRUE.equals(e.getBoolean("live"))));
			}
		}
		return members;
	}

	static FindOneAndUpdateOptions rosterOptions() {
		return new FindOneAndUpdateOptions().upsert(true)
			.returnDocument(ReturnDocument.AFTER)
			.projection(Projections.include("version"));
	}

	static long version(Document d) {
		Number version = d.get("version", Number.class);
		return (version != null) ? version.longValue() : 0;
	}

	static Roster toRoster(Document d) {
		List<RosterChange> changes = new ArrayList<>();
		List<Document> recent = d.getList("changes", Document.class);
		if (recent != null) {
			for (Document c : recent) {
				Number from = c.get("from", Number.class);
				changes.add(new RosterChange((from != null) ? from.longValue() : -1,
						toMembers(c.getList("upserted", Document.class)),
						toMembers(c.getList("removed", Document.class))));
			}
		}
		Number epoch = d.get("epoch", Number.class);
		return new Roster(version(d), d.getString("keeperNodeId"), (epoch != null) ? epoch.longValue() : 0,
				instant(d.getDate("writtenAt")), toMembers(d.getList("members", Document.class)), changes);
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

	/**
	 * A conditional upsert ({@code findOneAndUpdate} with upsert, returning the document after): empty when the
	 * condition did not hold, which the server answers with a duplicate key on {@code _id} (its insert collided).
	 */
	static Optional<Document> unlessTaken(Supplier<Document> upsert) {
		try {
			return Optional.ofNullable(upsert.get());
		}
		catch (MongoCommandException | MongoWriteException ex) {
			if (isDuplicateKey(ex)) {
				return Optional.empty();
			}
			throw ex;
		}
	}

	/**
	 * A heartbeat with {@code findOneAndUpdate(filter, update, options)}: on the node's own document first, then, when
	 * that belongs to another incarnation, taking it over.
	 */
	static Heartbeat heartbeat(NodeRecord node, FindOneAndUpdate findOneAndUpdate) {
		Bson update = heartbeatUpdate(node);
		try {
			return new Heartbeat(updatedAt(findOneAndUpdate.apply(ownNode(node), update, heartbeatOptions())), false);
		}
		catch (MongoCommandException | MongoWriteException ex) {
			if (!isDuplicateKey(ex)) {
				throw ex;
			}
		}
		return new Heartbeat(updatedAt(findOneAndUpdate.apply(byId(node.nodeId()), update, heartbeatOptions())), true);
	}

	/** A collection's findOneAndUpdate, blocking or not. */
	@FunctionalInterface
	interface FindOneAndUpdate {

		Document apply(Bson filter, Bson update, FindOneAndUpdateOptions options);

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
				instant(d.getDate("expiresAt")), instant(d.getDate("acquiredAt")), instant(d.getDate("renewedAt")));
	}

	static NodeRecord toNode(Document d) {
		List<String> groups = d.getList("groups", String.class);
		return new NodeRecord(d.getString("_id"), d.getString("incarnation"), d.getString("address"),
				instant(d.getDate("startedAt")), instant(d.getDate("updatedAt")), groups);
	}

	private static Instant instant(Date date) {
		return (date != null) ? date.toInstant() : null;
	}

	private static Date date(Instant instant) {
		return (instant != null) ? Date.from(instant) : null;
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
