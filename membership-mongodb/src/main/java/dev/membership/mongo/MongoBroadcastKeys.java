package dev.membership.mongo;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import org.bson.Document;

/**
 * The cluster's generated broadcast keys ({@link StoredBroadcastKeys}) on the blocking
 * driver.
 */
public class MongoBroadcastKeys extends StoredBroadcastKeys {

	public MongoBroadcastKeys(MongoDatabase database, String collection, Duration operationTimeout) {
		this(database.withTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.getCollection(collection)
			.withReadPreference(ReadPreference.primary())
			.withWriteConcern(WriteConcern.MAJORITY));
	}

	private MongoBroadcastKeys(MongoCollection<Document> keys) {
		super(keys::findOneAndUpdate, (filter) -> keys.find(filter).first());
	}

}
