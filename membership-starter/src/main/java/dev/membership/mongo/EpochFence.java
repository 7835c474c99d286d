package dev.membership.mongo;

import java.util.Objects;
import java.util.OptionalInt;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import org.bson.Document;
import org.bson.conversions.Bson;

import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.convert.QueryMapper;
import org.springframework.data.mongodb.core.convert.UpdateMapper;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

import dev.membership.leadership.LeadershipTerm;

/**
 * Makes MongoDB writes of leader-only code conditional on the term's epoch, by the fencing-token rule: a write applies
 * to a document only if no newer epoch of the same group has written it, and it records its own epoch there. A late
 * write from an old leader (it paused, or its belief ended while the write was in flight) then matches nothing and is
 * reported as fenced out, whatever the leader believed when it sent the write.
 * <p>
 * The fence is one field per group, {@code _fence.<group>} unless {@link #field(String) named}: the filter gains
 * {@code {<field>: {$not: {$gt: epoch}}}} (an absent fence counts as older) and the update gains
 * {@code {$max: {<field>: epoch}}}. One single-document update is atomic, so no transaction is needed. Only documents
 * written through a fence are protected, and only against writes that go through a fence too.
 * <p>
 * A fence is only as durable as its write: fenced writes are made with a majority write concern whatever the
 * collection or template says (its {@code wtimeout} and journal kept), since a newer leader's write acknowledged by
 * fewer members can be rolled back by a failover, and then an older leader's late write passes the fence. The epoch
 * that fenced a write out is read back from the primary with a local read concern: the fence the primary just
 * enforced, which a majority read may not show yet.
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

	private EpochFence(String group, long epoch, String field) {
		this.group = group;
		this.epoch = epoch;
		this.field = field;
	}

	/**
	 * A fence for writes of the leader of {@code term}'s group, with its epoch; for a partition's term, a fence of that
	 * partition ({@code _fence.<group>#<partition>}), since each partition has epochs of its own.
	 */
	public static EpochFence of(LeadershipTerm term) {
		EpochFence fence = of(term.group(), term.epoch());
		OptionalInt partition = term.partition();
		return partition.isPresent() ? fence.field(fence.field() + "#" + partition.getAsInt()) : fence;
	}

	/** A fence for {@code epoch} of {@code group}, for code that carries the epoch rather than the term. */
	public static EpochFence of(String group, long epoch) {
		Objects.requireNonNull(group, "group");
		if (group.isEmpty() || group.contains(".") || group.startsWith("$")) {
			// no term has such a group (the settings refuse the name): this is an epoch carried by hand
			throw new IllegalArgumentException("Group '" + group + "' cannot name a field (no '.', no leading '$'): "
					+ "give the fence a field of its own with EpochFence.of(\"fenceName\", epoch).field(\"...\")");
		}
		return new EpochFence(group, epoch, DEFAULT_FIELD_PREFIX + group);
	}

	/** The same fence kept in another field (a dotted path is fine). */
	public EpochFence field(String field) {
		if (field == null || field.isBlank() || field.startsWith("$")) {
			throw new IllegalArgumentException("Not a field name: '" + field + "'");
		}
		return new EpochFence(this.group, this.epoch, field);
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

	// ------------------------------------------------------------------ the MongoDB driver

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
	 * A fenced {@code updateOne}. With {@code upsert}, the filter must select by a unique key (such as {@code _id}):
	 * when the document exists under a newer epoch, the insert collides with it and the write is reported as fenced
	 * out; when a concurrent upsert created it meanwhile, the write is tried once more as a plain fenced update.
	 */
	public FencedWriteResult updateOne(MongoCollection<?> target, Bson filter, Bson update, UpdateOptions options) {
		MongoCollection<?> collection = durable(target);
		UpdateResult result;
		try {
			result = collection.updateOne(filter(filter), update(update), options);
		}
		catch (MongoWriteException | MongoCommandException ex) {
			if (!options.isUpsert() || !isDuplicateKey(ex)) {
				throw ex;
			}
			// the document exists now: held by a newer epoch, or just created by a concurrent upsert
			result = collection.updateOne(filter(filter), update(update), withoutUpsert(options));
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

	/** The caller's options, every one of them, but the upsert. */
	static UpdateOptions withoutUpsert(UpdateOptions options) {
		return new UpdateOptions().upsert(false)
			.bypassDocumentValidation(options.getBypassDocumentValidation())
			.collation(options.getCollation())
			.arrayFilters(options.getArrayFilters())
			.hint(options.getHint())
			.hintString(options.getHintString())
			.comment(options.getComment())
			.let(options.getLet())
			.sort(options.getSort());
	}

	/** A fenced {@code updateMany}: documents a newer epoch wrote are left alone and reported. */
	public FencedWriteResult updateMany(MongoCollection<?> target, Bson filter, Bson update) {
		MongoCollection<?> collection = durable(target);
		UpdateResult result = collection.updateMany(filter(filter), update(update));
		return new FencedWriteResult(result.getMatchedCount(), result.getModifiedCount(), false,
				newerEpoch(collection, filter));
	}

	/**
	 * {@code collection} writing with a majority write concern: as it is when it does, else with majority in place of
	 * its {@code w} (and without a {@code j: false}), its {@code wtimeout} and {@code j: true} kept.
	 */
	static <T> MongoCollection<T> durable(MongoCollection<T> collection) {
		WriteConcern asked = collection.getWriteConcern();
		if ("majority".equals(asked.getWObject()) && !Boolean.FALSE.equals(asked.getJournal())) {
			return collection;
		}
		WriteConcern majority = WriteConcern.MAJORITY;
		Integer timeout = asked.getWTimeout(TimeUnit.MILLISECONDS);
		if (timeout != null) {
			majority = majority.withWTimeout(timeout, TimeUnit.MILLISECONDS);
		}
		if (Boolean.TRUE.equals(asked.getJournal())) {
			majority = majority.withJournal(true);
		}
		return collection.withWriteConcern(majority);
	}

	/**
	 * Read from the primary, which just refused the write, whatever the application's read preference says, and with
	 * a local read concern: the fence it enforced, which a majority read may not show yet.
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

	private static boolean isDuplicateKey(RuntimeException ex) {
		if (ex instanceof MongoWriteException write) {
			return write.getError().getCategory() == ErrorCategory.DUPLICATE_KEY;
		}
		return ex instanceof MongoCommandException command
				&& ErrorCategory.fromErrorCode(command.getErrorCode()) == ErrorCategory.DUPLICATE_KEY;
	}

	// ------------------------------------------------------------------ Spring Data MongoDB

	/** Adds the fence to {@code query} (which it returns): only documents no newer epoch has written. */
	public Query query(Query query) {
		return query.addCriteria(Criteria.where(this.field).not().gt(this.epoch));
	}

	/** Adds {@code $max} of this epoch on the fence to {@code update} (which it returns). */
	public Update update(Update update) {
		return update.max(this.field, this.epoch);
	}

	/**
	 * A fenced {@code updateFirst} on {@code collection}: the query and update mapped by {@code mongo}'s converter as
	 * its own writes are, then written as {@link #updateOne(MongoCollection, Bson, Bson, UpdateOptions)} writes (with
	 * a majority write concern); the driver's failures reach the caller translated, as from the template.
	 */
	public FencedWriteResult updateFirst(MongoOperations mongo, Query query, Update update, String collection) {
		return mongo.execute(collection, (target) -> updateOne(target, mapped(mongo, query),
				mapped(mongo, update), options(query)));
	}

	/** A fenced {@code updateMulti}: documents a newer epoch wrote are left alone and reported. */
	public FencedWriteResult updateMulti(MongoOperations mongo, Query query, Update update, String collection) {
		return mongo.execute(collection,
				(target) -> updateMany(target, mapped(mongo, query), mapped(mongo, update)));
	}

	/**
	 * A fenced {@code upsert}: the query must select by a unique key (such as {@code _id}), so that a document a newer
	 * epoch holds makes the insert collide and the write is reported as fenced out.
	 */
	public FencedWriteResult upsert(MongoOperations mongo, Query query, Update update, String collection) {
		return mongo.execute(collection, (target) -> updateOne(target, mapped(mongo, query), mapped(mongo, update),
				options(query).upsert(true)));
	}

	private static Document mapped(MongoOperations mongo, Query query) {
		return new QueryMapper(mongo.getConverter()).getMappedObject(query.getQueryObject(), Optional.empty());
	}

	private static Document mapped(MongoOperations mongo, Update update) {
		return new UpdateMapper(mongo.getConverter()).getMappedObject(update.getUpdateObject(), Optional.empty());
	}

	/** The query's collation (its sort and limit do not apply: a fenced single write selects by a unique key). */
	private static UpdateOptions options(Query query) {
		UpdateOptions options = new UpdateOptions();
		query.getCollation().ifPresent((collation) -> options.collation(collation.toMongoCollation()));
		return options;
	}

	// ------------------------------------------------------------------ results

	/** Fenced out when a newer epoch is seen on the document; otherwise the collision was another matter. */
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
		return "EpochFence[group=" + this.group + ", epoch=" + this.epoch + ", field=" + this.field + "]";
	}

}
