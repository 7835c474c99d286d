package dev.membership.mongo;

import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.function.Supplier;

import com.mongodb.ErrorCategory;
import com.mongodb.MongoCommandException;
import com.mongodb.MongoException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.MongoWriteException;
import com.mongodb.client.model.Filters;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.StoreException;

/**
 * The documents, filters and updates of the MongoDB stores, shared by the blocking and
 * the reactive one so that both write exactly the same thing. See
 * {@link MongoMembershipStore} for why each operation is safe.
 */
final class MembershipDocuments {

	static final int DUPLICATE_KEY = 11000;

	private static final Logger log = LoggerFactory.getLogger(MembershipDocuments.class);

	private MembershipDocuments() {
	}

	static Bson byId(String id) {
		return Filters.eq("_id", id);
	}

	/**
	 * A conditional upsert ({@code findOneAndUpdate} with upsert, returning the document
	 * after): empty when the condition did not hold, which the server answers with a
	 * duplicate key on {@code _id} (its insert collided).
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

	static boolean isDuplicateKey(MongoException ex) {
		if (ex instanceof MongoWriteException write) {
			return write.getError().getCategory() == ErrorCategory.DUPLICATE_KEY;
		}
		return ex.getCode() == DUPLICATE_KEY;
	}

	static Instant instant(Date date) {
		return (date != null) ? date.toInstant() : null;
	}

	static Date date(Instant instant) {
		return (instant != null) ? Date.from(instant) : null;
	}

	/**
	 * Runs one store operation, turning the driver's failures into
	 * {@link StoreException}: retryable when reissuing may get through, as the drivers'
	 * retryable writes judge it (a step-down, a network error), never after a timeout.
	 */
	static <T> T call(String operation, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (MongoException ex) {
			throw new StoreException("MongoDB " + operation + " failed: " + ex.getMessage(), ex, isRetryable(ex));
		}
	}

	/**
	 * The errors after which the drivers retry a retryable write once (the
	 * retryable-writes specification): labelled {@code RetryableWriteError} by the server
	 * or driver, a "not primary" or "node is recovering" answer, or a network error other
	 * than a timeout. They do not retry multi-document writes ({@code updateMany}); the
	 * node reissues those itself once.
	 */
	static boolean isRetryable(MongoException ex) {
		if (ex instanceof MongoOperationTimeoutException || ex instanceof MongoSocketReadTimeoutException
				|| ex instanceof MongoExecutionTimeoutException) {
			return false;
		}
		return ex.hasErrorLabel("RetryableWriteError") || ex instanceof MongoNotPrimaryException
				|| ex instanceof MongoNodeIsRecoveringException || ex instanceof MongoSocketException;
	}

}
