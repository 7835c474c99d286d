package dev.membership.mongo;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.reactivestreams.client.MongoCollection;
import com.mongodb.reactivestreams.client.MongoDatabase;
import org.bson.Document;
import reactor.core.publisher.Mono;

import dev.membership.broadcast.BroadcastKeySource;

/**
 * The cluster's generated broadcast keys ({@link StoredBroadcastKeys}) on the reactive
 * driver, for applications without the blocking one. The keys are read rarely (at first
 * use, then every few minutes) and never on an event loop: the receiver runs off it and
 * the sender reads them on its own threads, so these calls block, bounded by the
 * operation timeout.
 */
public final class ReactiveMongoBroadcastKeys {

	private ReactiveMongoBroadcastKeys() {
	}

	public static BroadcastKeySource of(MongoDatabase database, String collection, Duration operationTimeout) {
		MongoCollection<Document> keys = database.withTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.getCollection(collection)
			.withReadPreference(ReadPreference.primary())
			.withWriteConcern(WriteConcern.MAJORITY);
		Duration blockAtMost = operationTimeout.plusMillis(250);
		return new StoredBroadcastKeys((filter, update,
				options) -> Mono.from(keys.findOneAndUpdate(filter, update, options)).block(blockAtMost),
				(filter) -> Mono.from(keys.find(filter).first()).block(blockAtMost));
	}

}
