package dev.membership.mongo;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.reactivestreams.client.MongoDatabase;

/**
 * {@link MongoRunHistory} on the application's reactive driver. Each call blocks only the
 * membership node's loop (a write) or the actuator's request thread (a read), bounded by
 * the driver's operation timeout.
 */
public class ReactiveMongoRunHistory extends DocumentsRunHistory {

	public ReactiveMongoRunHistory(MongoDatabase database, String collection, Duration retention, int maxRuns,
			Duration operationTimeout) {
		super(ReactiveDocuments.database(database.withTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.withReadPreference(ReadPreference.primary()), operationTimeout.plusMillis(250)), collection, retention,
				maxRuns);
	}

}
