package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;

import com.mongodb.MongoCommandException;
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
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.Heartbeat;
import dev.membership.spi.NodeRecord;

/**
 * The node documents of the MongoDB stores: one per node, keyed by {@code _id}, stamped
 * by the server at every heartbeat, with a TTL index that removes long-dead ones.
 */
final class NodeDocuments {

	/**
	 * The batch size of a read of every node document, from how many the last read found:
	 * all of them in the first batch with room to grow (a first batch holds at most 101
	 * documents unless told more: a getMore each interval for the keeper of more than a
	 * hundred members).
	 */
	static int batchFor(int lastCount) {
		return lastCount + lastCount / 4 + 16;
	}

	private static final Logger log = LoggerFactory.getLogger(NodeDocuments.class);

	/**
	 * An index of these keys exists with other options (here: another TTL), or under
	 * another name.
	 */
	private static final int INDEX_OPTIONS_CONFLICT = 85;

	/** An index of this name exists with other keys. */
	private static final int INDEX_KEY_SPECS_CONFLICT = 86;

	private static final String TTL_INDEX = "membership_node_ttl";

	/**
	 * Creates the TTL index on the nodes' {@code updatedAt} with
	 * {@code create(keys, options)}. When the index exists with another TTL (the
	 * retention was changed), {@code collMod} sets the new one through
	 * {@code runCommand}; an index of that name on other keys is left alone. Either way
	 * the keeper's own cleanup goes on, so only those conflicts are tolerated (and said
	 * at WARN when they cannot be mended); any other failure, such as a missing
	 * privilege, is the caller's to report.
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
				log.warn(
						"Kept the index {} on {}: it has other keys than {updatedAt: 1} ({}); dead node documents are "
								+ "still removed by the keeper of the roster",
						TTL_INDEX, namespace, ex.getErrorMessage());
				return;
			}
			if (ex.getErrorCode() != INDEX_OPTIONS_CONFLICT) {
				throw ex;
			}
			changeTtl(ttlSeconds, runCommand, namespace);
		}
	}

	private static void changeTtl(long ttlSeconds, Function<Document, Document> runCommand, MongoNamespace namespace) {
		Document collMod = new Document("collMod", namespace.getCollectionName()).append("index",
				new Document("keyPattern", new Document("updatedAt", 1)).append("expireAfterSeconds", ttlSeconds));
		try {
			runCommand.apply(collMod);
			log.info("Changed the TTL of dead node documents on {} to {} s (membership.dead-node-retention)", namespace,
					ttlSeconds);
		}
		catch (MongoCommandException ex) {
			log.warn(
					"Could not change the TTL index on {} to {} s ({}); it keeps its old TTL until changed with "
							+ "collMod, and dead node documents are still removed by the keeper of the roster",
					namespace, ttlSeconds, ex.getErrorMessage());
		}
	}

	/**
	 * The node's own document: when it belongs to another incarnation, the upsert
	 * collides on {@code _id} (duplicate key), which tells the caller another process
	 * wrote it; then {@link #byId} takes it over.
	 */
	static Bson ownNode(NodeRecord node) {
		return nodeOf(node.nodeId(), node.incarnation());
	}

	static Bson heartbeatUpdate(NodeRecord node) {
		return Updates.combine(Updates.set("incarnation", node.incarnation()), Updates.set("address", node.address()),
				// not known yet (no sample of the database's clock before this write, as
				// behind a mongos): the write's own stamp is when the node started, as
				// the others see it
				(node.startedAt() != null) ? Updates.set("startedAt", Date.from(node.startedAt()))
						: Updates.currentDate("startedAt"),
				Updates.set("groups", node.groups()),
				Updates.set("partitions", Placements.countsToDocuments(node.partitions())),
				// and no "leading": what versions before the roster wrote
				Updates.currentDate("updatedAt"), Updates.unset("leading"));
	}

	/** Returns the stamp just written: the caller's clock sample. */
	static FindOneAndUpdateOptions heartbeatOptions() {
		return new FindOneAndUpdateOptions().upsert(true)
			.returnDocument(ReturnDocument.AFTER)
			.projection(Projections.include("updatedAt"));
	}

	static Instant updatedAt(Document after) {
		return (after != null) ? MembershipDocuments.instant(after.getDate("updatedAt")) : null;
	}

	/**
	 * A heartbeat with {@code findOneAndUpdate(filter, update, options)}: on the node's
	 * own document first, then, when that belongs to another incarnation, taking it over.
	 */
	static Heartbeat heartbeat(NodeRecord node, FindOneAndUpdate findOneAndUpdate) {
		Bson update = heartbeatUpdate(node);
		try {
			return new Heartbeat(
					stamped(node, findOneAndUpdate.apply(ownNode(node), update, heartbeatOptions()), findOneAndUpdate),
					false);
		}
		catch (MongoCommandException | MongoWriteException ex) {
			if (!MembershipDocuments.isDuplicateKey(ex)) {
				throw ex;
			}
		}
		return new Heartbeat(stamped(node,
				findOneAndUpdate.apply(MembershipDocuments.byId(node.nodeId()), update, heartbeatOptions()),
				findOneAndUpdate), true);
	}

	/**
	 * The write's stamp. Where the write stamped the start too (a node that did not know
	 * when it started), each {@code $currentDate} reads the clock on its own, so the two
	 * can differ by a tick: the start is then set to the write's stamp, one call more,
	 * once in the node's life.
	 */
	private static @Nullable Instant stamped(NodeRecord node, Document after, FindOneAndUpdate findOneAndUpdate) {
		Instant writtenAt = updatedAt(after);
		if (node.startedAt() == null && after != null && writtenAt != null
				&& !writtenAt.equals(MembershipDocuments.instant(after.getDate("startedAt")))) {
			// never an upsert: a document another incarnation took meanwhile stays as it
			// is
			findOneAndUpdate.apply(ownNode(node), Updates.set("startedAt", Date.from(writtenAt)),
					new FindOneAndUpdateOptions());
		}
		return writtenAt;
	}

	/** A collection's findOneAndUpdate, blocking or not. */
	@FunctionalInterface
	interface FindOneAndUpdate {

		Document apply(Bson filter, Bson update, FindOneAndUpdateOptions options);

	}

	static NodeRecord toNode(Document d) {
		List<String> groups = d.getList("groups", String.class);
		return new NodeRecord(d.getString("_id"), d.getString("incarnation"), d.getString("address"),
				MembershipDocuments.instant(d.getDate("startedAt")),
				MembershipDocuments.instant(d.getDate("updatedAt")), groups,
				Placements.counts(d.getList("partitions", Document.class)));
	}

	static Bson nodeOf(String nodeId, String incarnation) {
		return Filters.and(Filters.eq("_id", nodeId), Filters.eq("incarnation", incarnation));
	}

	static Bson notSeenSince(Instant cutoff) {
		return Filters.lt("updatedAt", Date.from(cutoff));
	}

	private NodeDocuments() {
	}

}
