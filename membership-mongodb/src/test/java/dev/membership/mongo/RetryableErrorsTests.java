package dev.membership.mongo;

import com.mongodb.MongoException;
import com.mongodb.MongoExecutionTimeoutException;
import com.mongodb.MongoNodeIsRecoveringException;
import com.mongodb.MongoNotPrimaryException;
import com.mongodb.MongoOperationTimeoutException;
import com.mongodb.MongoSocketOpenException;
import com.mongodb.MongoSocketReadException;
import com.mongodb.MongoSocketReadTimeoutException;
import com.mongodb.ServerAddress;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What the node reissues once: the errors after which the drivers would retry a retryable
 * write (a step-down's "not primary", a node recovering, a network error, anything the
 * server labels RetryableWriteError), never a timeout.
 */
class RetryableErrorsTests {

	private static final ServerAddress HOST = new ServerAddress("db-1", 27017);

	@Test
	void aStepDownsErrorsAreRetryableAndTimeoutsAreNot() {
		MongoException labelled = new MongoException(91, "ShutdownInProgress");
		labelled.addLabel("RetryableWriteError");
		for (MongoException retryable : new MongoException[] { labelled,
				new MongoNotPrimaryException(BsonDocument.parse("{ok: 0, code: 10107}"), HOST),
				new MongoNodeIsRecoveringException(BsonDocument.parse("{ok: 0, code: 91}"), HOST),
				new MongoSocketReadException("closed", HOST), new MongoSocketOpenException("refused", HOST) }) {
			assertThat(failure(retryable).isRetryable()).as(retryable.toString()).isTrue();
		}
		for (MongoException notRetryable : new MongoException[] { new MongoOperationTimeoutException("timeoutMS"),
				new MongoSocketReadTimeoutException("read timed out", HOST, null),
				new MongoExecutionTimeoutException(50, "maxTimeMS"), new MongoException(11000, "duplicate key"),
				new MongoException(64, "waiting for replication timed out") }) {
			assertThat(failure(notRetryable).isRetryable()).as(notRetryable.toString()).isFalse();
		}
	}

	private static StoreException failure(MongoException ex) {
		return catchThrowableOfType(StoreException.class, () -> MembershipDocuments.call("renewAll", () -> {
			throw ex;
		}));
	}

}
