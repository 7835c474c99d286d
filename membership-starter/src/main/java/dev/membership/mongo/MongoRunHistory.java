package dev.membership.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
import org.bson.Document;

import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;

/**
 * The run history in a MongoDB collection ({@code clusterruns} by default): one document per run, at most
 * {@code maxRuns} per job, partition and node process (a ring of slots, so no call is spent on trimming), none older
 * than {@code retention} (a TTL index on {@code expireAt}). A batch of runs is one {@code update} command; reads go to
 * the primary.
 */
public class MongoRunHistory implements RunHistoryStore {

	private final MongoCollection<Document> runs;

	private final Duration retention;

	private final int maxRuns;

	public MongoRunHistory(MongoDatabase database, String collection, Duration retention, int maxRuns,
			Duration operationTimeout) {
		this.runs = database.withTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.withReadPreference(ReadPreference.primary())
			.getCollection(collection);
		this.retention = retention;
		this.maxRuns = maxRuns;
	}

	@Override
	public void initialize() {
		MembershipDocuments.call("initialize runs", () -> this.runs.createIndexes(RunDocuments.indexes()));
	}

	@Override
	public void save(List<RunRecord> records) {
		if (records.isEmpty()) {
			return;
		}
		MembershipDocuments.call("save runs", () -> this.runs.bulkWrite(
				RunDocuments.writes(records, this.retention, this.maxRuns), new BulkWriteOptions().ordered(false)));
	}

	@Override
	public List<RunRecord> find(RunQuery query) {
		return MembershipDocuments.call("find runs", () -> this.runs.find(RunDocuments.filter(query))
			.sort(RunDocuments.newestFirst())
			.limit(query.limit())
			.batchSize(query.limit())
			.map(RunDocuments::toRecord)
			.into(new ArrayList<>()));
	}

}
