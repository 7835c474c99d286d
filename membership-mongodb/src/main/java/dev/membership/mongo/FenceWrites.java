package dev.membership.mongo;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoWriteException;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOptions;
import org.bson.Document;

import org.springframework.data.mongodb.core.MongoOperations;
import org.springframework.data.mongodb.core.convert.QueryMapper;
import org.springframework.data.mongodb.core.convert.UpdateMapper;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

/**
 * What {@link EpochFence}'s writes share: the write concern they insist on, their
 * options, and Spring Data's mapping.
 */
final class FenceWrites {

	private FenceWrites() {
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

	/**
	 * {@code collection} writing with a majority write concern: as it is when it does,
	 * else with majority in place of its {@code w} (and without a {@code j: false}), its
	 * {@code wtimeout} and {@code j: true} kept.
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

	static boolean isDuplicateKey(RuntimeException ex) {
		if (ex instanceof MongoWriteException write) {
			return write.getError().getCategory() == ErrorCategory.DUPLICATE_KEY;
		}
		return ex instanceof MongoCommandException command
				&& ErrorCategory.fromErrorCode(command.getErrorCode()) == ErrorCategory.DUPLICATE_KEY;
	}

	static Document mapped(MongoOperations mongo, Query query) {
		return new QueryMapper(mongo.getConverter()).getMappedObject(query.getQueryObject(), Optional.empty());
	}

	static Document mapped(MongoOperations mongo, Update update) {
		return new UpdateMapper(mongo.getConverter()).getMappedObject(update.getUpdateObject(), Optional.empty());
	}

	/**
	 * The query's collation (its sort and limit do not apply: a fenced single write
	 * selects by a unique key).
	 */
	static UpdateOptions options(Query query) {
		UpdateOptions options = new UpdateOptions();
		query.getCollation().ifPresent((collation) -> options.collation(collation.toMongoCollation()));
		return options;
	}

}
