package dev.membership.mongo;

import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.reactivestreams.client.MongoDatabase;

/**
 * The same store as {@link MongoMembershipStore}, on the application's reactive driver,
 * so that a reactive application needs no blocking driver and no second connection pool.
 * Each call blocks only the membership node's own loop thread (never a reactive one),
 * bounded by the driver's operation timeout like the blocking store.
 */
public class ReactiveMongoMembershipStore extends DocumentsStore {

	public ReactiveMongoMembershipStore(MongoDatabase database, MongoStoreSettings settings) {
		// every read from the primary, whatever the application's client says
		// (secondaryPreferred is common); a call is blocked for a little longer than the
		// driver's own timeout, which is what normally ends it, still shorter than a
		// lease
		super(ReactiveDocuments
			.database(database.withTimeout(settings.operationTimeout().toMillis(), TimeUnit.MILLISECONDS)
				.withReadPreference(ReadPreference.primary()), settings.operationTimeout().plusMillis(250)), settings);
	}

}
