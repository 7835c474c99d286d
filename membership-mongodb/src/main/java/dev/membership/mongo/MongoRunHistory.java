package dev.membership.mongo;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.client.MongoDatabase;

/**
 * The run history in a MongoDB collection ({@code clusterruns} by default): one document
 * per run, at most {@code maxRuns} per job, partition and node process (a ring of slots,
 * so no call is spent on trimming but two as a process writes a job and partition for the
 * first time, {@link dev.membership.spi.RunRings}), none older than {@code retention} (a
 * TTL index on {@code expireAt}). A batch of runs is one {@code update} command; reads go
 * to the primary.
 */
public class MongoRunHistory extends DocumentsRunHistory {

	public MongoRunHistory(MongoDatabase database, String collection, Duration retention, int maxRuns,
			Duration operationTimeout) {
		super(SyncDocuments.database(database.withTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.withReadPreference(ReadPreference.primary())), collection, retention, maxRuns);
	}

}
