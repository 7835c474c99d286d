package dev.membership.mongo;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import org.bson.Document;
import org.bson.conversions.Bson;

import org.springframework.data.mongodb.MongoDatabaseFactory;
import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

import dev.membership.leadership.LeadershipTerm;

/**
 * Makes MongoDB writes of leader-only code conditional on the term's epoch, by the
 * fencing-token rule: a write applies to a document only if no newer epoch of the same
 * group has written it, and it records its own epoch there. A late write from an old
 * leader (it paused, or its belief ended while the write was in flight) then matches
 * nothing and is reported as fenced out, whatever the leader believed when it sent the
 * write.
 * <p>
 * The fence is one field per group, {@code _fence.<group>} unless {@link #field(String)
 * named}: the filter gains {@code {<field>: {$not: {$gt: epoch}}}} (an absent fence
 * counts as older) and the update gains {@code {$max: {<field>: epoch}}}. One
 * single-document update is atomic, so no transaction is needed. Only documents written
 * through a fence are protected, and only against writes that go through a fence too.
 * <p>
 * A fence is only as durable as its write: fenced writes are made with a majority write
 * concern whatever the collection or template says (its {@code wtimeout} and journal
 * kept), since a newer leader's write acknowledged by fewer members can be rolled back by
 * a failover, and then an older leader's late write passes the fence. The epoch that
 * fenced a write out is read back from the primary with a local read concern: the fence
 * the primary just enforced, which a majority read may not show yet.
 *
 * <pre>
 * EpochFence fence = EpochFence.of(term);
 * FencedWriteResult result = fence.updateFirst(mongoTemplate, query(where("_id").is("report")), update, "reports");
 * if (result.isFencedOut()) { ... a newer leader (epoch result.supersededBy()) wrote it: stop ... }
 * </pre>
 */
public final class EpochFence {

	/** Where fences live unless named otherwise: {@code _fence.<group>}. */
	public static final String DEFAULT_FIELD_PREFIX = "_fence.";

	private final String group;

	private final long epoch;

	private final String field;

	/** The lease whose term this is: the group, or {@code group#partition}. */
	private final String lease;

	private final String terms;

	private EpochFence(String group, long epoch, String field, String lease, String terms) {
		this.group = group;
		this.epoch = epoch;
		this.field = field;
		this.lease = lease;
		this.terms = terms;
	}

	/**
	 * A fence for writes of the leader of {@code term}'s group, with its epoch; for a
	 * partition's term, a fence of that partition ({@code _fence.<group>#<partition>}),
	 * since each partition has epochs of its own.
	 */
	public static EpochFence of(LeadershipTerm term) {
		EpochFence fence = of(term.group(), term.epoch());
		OptionalInt partition = term.partition();
		if (partition.isEmpty()) {
			return fence;
		}
		String suffix = "#" + partition.getAsInt();
		return new EpochFence(fence.group, fence.epoch, fence.field + suffix, fence.lease + suffix, fence.terms);
	}

	/**
	 * A fence for {@code epoch} of {@code group}, for code that carries the epoch rather
	 * than the term.
	 */
	public static EpochFence of(String group, long epoch) {
		Objects.requireNonNull(group, "group");
		if (group.isEmpty() || group.contains(".") || group.startsWith("$")) {
			// no term has such a group (the settings refuse the name): this is an epoch
			// carried by hand
			throw new IllegalArgumentException("Group '" + group + "' cannot name a field (no '.', no leading '$'): "
					+ "give the fence a field of its own with EpochFence.of(\"fenceName\", epoch).field(\"...\")");
		}
		return new EpochFence(group, epoch, DEFAULT_FIELD_PREFIX + group, group,
				MongoStoreSettings.DEFAULT_TERMS_COLLECTION);
	}

	/** The same fence kept in another field (a dotted path is fine). */
	public EpochFence field(String field) {
		if (field == null || field.isBlank() || field.startsWith("$")) {
			throw new IllegalArgumentException("Not a field name: '" + field + "'");
		}
		return new EpochFence(this.group, this.epoch, field, this.lease, this.terms);
	}

	/**
	 * The same fence, for a store whose terms live in {@code collection}
	 * ({@code membership.mongo.terms-collection}).
	 */
	public EpochFence termsCollection(String collection) {
		if (collection == null || collection.isBlank()) {
			throw new IllegalArgumentException("Not a collection name: '" + collection + "'");
		}
		return new EpochFence(this.group, this.epoch, this.field, this.lease, collection);
	}

	// ------------------------------------------------------------------ the transaction
	// fence

	/**
	 * Makes the caller's MongoDB transaction commit only under this term: a term that is
	 * over throws {@link dev.membership.leadership.FencedOutException}, and a take-over
	 * waits for this transaction to end before its term begins, so the transaction cannot
	 * commit after a newer term began. Call it first in a {@code @Transactional} method
	 * run by a {@code MongoTransactionManager} on {@code factory}; outside a transaction
	 * it throws {@link IllegalStateException}. Needs a replica set or a sharded cluster,
	 * and the node's store writing its terms to the same database. Fenced transactions of
	 * one term run one at a time (a second one open at once fails with a
	 * {@code WriteConflict}, a transient transaction error); give them a timeout well
	 * below the lease, as a take-over waits for them.
	 */
	public void joinTransaction(MongoDatabaseFactory factory) {
		TransactionFence.join(factory, this.terms, this.lease, this.group, this.epoch);
	}

	/**
	 * {@link #joinTransaction(MongoDatabaseFactory)} with the driver's own transaction,
	 * open on {@code session}.
	 */
	public void joinTransaction(ClientSession session, MongoDatabase database) {
		TransactionFence.join(session, database, this.terms, this.lease, this.group, this.epoch);
	}

	public String group() {
		return this.group;
	}

	public long epoch() {
		return this.epoch;
	}

	public String field() {
		return this.field;
	}

	// ------------------------------------------------------------------ the MongoDB
	// driver

	/** {@code filter} restricted to documents no newer epoch has written. */
	public Bson filter(Bson filter) {
		return Filters.and(filter, Filters.not(Filters.gt(this.field, this.epoch)));
	}

	/** {@code update} that also records this epoch as the document's fence. */
	public Bson update(Bson update) {
		return Updates.combine(update, Updates.max(this.field, this.epoch));
	}

	public FencedWriteResult updateOne(MongoCollection<?> collection, Bson filter, Bson update) {
		return updateOne(collection, filter, update, new UpdateOptions());
	}

	/**
	 * A fenced {@code updateOne}. With {@code upsert}, the filter must select by a unique
	 * key (such as {@code _id}): when the document exists under a newer epoch, the insert
	 * collides with it and the write is reported as fenced out; when a concurrent upsert
	 * created it meanwhile, the write is tried once more as a plain fenced update.
	 */
	public FencedWriteResult updateOne(MongoCollection<?> target, Bson filter, Bson update, UpdateOptions options) {
		MongoCollection<?> collection = FenceWrites.durable(target);
		UpdateResult result;
		try {
			result = collection.updateOne(filter(filter), update(update), options);
		}
		catch (MongoWriteException | MongoCommandException ex) {
			if (!options.isUpsert() || !FenceWrites.isDuplicateKey(ex)) {
				throw ex;
			}
			// the document exists now: held by a newer epoch, or just created by a
			// concurrent upsert
			result = collection.updateOne(filter(filter), update(update), FenceWrites.withoutUpsert(options));
			if (result.getMatchedCount() == 0) {
				return fencedOutOr(newerEpoch(collection, filter), ex);
			}
		}
		if (result.getMatchedCount() > 0 || result.getUpsertedId() != null) {
			return new FencedWriteResult(result.getMatchedCount(), result.getModifiedCount(),
					result.getUpsertedId() != null, OptionalLong.empty());
		}
		return new FencedWriteResult(0, 0, false, newerEpoch(collection, filter));
	}

	/**
	 * A fenced {@code updateMany}: documents a newer epoch wrote are left alone and
	 * reported.
	 */
	public FencedWriteResult updateMany(MongoCollection<?> target, Bson filter, Bson update) {
		MongoCollection<?> collection = FenceWrites.durable(target);
		UpdateResult result = collection.updateMany(filter(filter), update(update));
		return new FencedWriteResult(result.getMatchedCount(), result.getModifiedCount(), false,
				newerEpoch(collection, filter));
	}

	/**
	 * Read from the primary, which just refused the write, whatever the application's
	 * read preference says, and with a local read concern: the fence it enforced, which a
	 * majority read may not show yet.
	 */
	private OptionalLong newerEpoch(MongoCollection<?> collection, Bson filter) {
		Document newest = collection.withDocumentClass(Document.class)
			.withReadPreference(ReadPreference.primary())
			.withReadConcern(ReadConcern.LOCAL)
			.find(Filters.and(filter, Filters.gt(this.field, this.epoch)))
			.projection(Projections.include(this.field))
			.sort(Sorts.descending(this.field))
			.first();
		return epochIn(newest);
	}

	// ------------------------------------------------------------------ Spring Data
	// MongoDB

	/**
	 * Adds the fence to {@code query} (which it returns): only documents no newer epoch
	 * has written.
	 */
	public Query query(Query query) {
		return query.addCriteria(Criteria.where(this.field).not().gt(this.epoch));
	}

	/**
	 * Adds {@code $max} of this epoch on the fence to {@code update} (which it returns).
	 */
	public Update update(Update update) {
		return update.max(this.field, this.epoch);
	}

	/**
	 * A fenced {@code updateFirst} on {@code collection}: the query and update mapped by
	 * {@code mongo}'s converter as its own writes are, then written as
	 * {@link #updateOne(MongoCollection, Bson, Bson, UpdateOptions)} writes (with a
	 * majority write concern); the driver's failures reach the caller translated, as from
	 * the template.
	 */
	public FencedWriteResult updateFirst(MongoOperations mongo, Query query, Update update, String collection) {
		return mongo.execute(collection, (target) -> updateOne(target, FenceWrites.mapped(mongo, query),
				FenceWrites.mapped(mongo, update), FenceWrites.options(query)));
	}

	/**
	 * A fenced {@code updateMulti}: documents a newer epoch wrote are left alone and
	 * reported.
	 */
	public FencedWriteResult updateMulti(MongoOperations mongo, Query query, Update update, String collection) {
		return mongo.execute(collection,
				(target) -> updateMany(target, FenceWrites.mapped(mongo, query), FenceWrites.mapped(mongo, update)));
	}

	/**
	 * A fenced {@code upsert}: the query must select by a unique key (such as
	 * {@code _id}), so that a document a newer epoch holds makes the insert collide and
	 * the write is reported as fenced out.
	 */
	public FencedWriteResult upsert(MongoOperations mongo, Query query, Update update, String collection) {
		return mongo.execute(collection, (target) -> updateOne(target, FenceWrites.mapped(mongo, query),
				FenceWrites.mapped(mongo, update), FenceWrites.options(query).upsert(true)));
	}

	// ------------------------------------------------------------------ results

	/**
	 * Fenced out when a newer epoch is seen on the document; otherwise the collision was
	 * another matter.
	 */
	private static FencedWriteResult fencedOutOr(OptionalLong newer, RuntimeException collision) {
		if (newer.isEmpty()) {
			throw collision;
		}
		return new FencedWriteResult(0, 0, false, newer);
	}

	private OptionalLong epochIn(Document document) {
		if (document == null) {
			return OptionalLong.empty();
		}
		Object value = document;
		for (String part : this.field.split("\\.")) {
			value = (value instanceof Document d) ? d.get(part) : null;
		}
		return (value instanceof Number n) ? OptionalLong.of(n.longValue()) : OptionalLong.empty();
	}

	@Override
	public String toString() {
		return "EpochFence[group=" + this.group + ", epoch=" + this.epoch + ", field=" + this.field + ", lease="
				+ this.lease + "]";
	}

}
