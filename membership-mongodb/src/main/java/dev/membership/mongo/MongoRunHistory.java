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
import dev.membership.spi.RunRings;

/**
 * The run history in a MongoDB collection ({@code clusterruns} by default): one document
 * per run, at most {@code maxRuns} per job, partition and node process (a ring of slots,
 * so no call is spent on trimming but two as a process writes a job and partition for the
 * first time, {@link RunRings}), none older than {@code retention} (a TTL index on
 * {@code expireAt}). A batch of runs is one {@code update} command; reads go to the
 * primary.
 */
public class MongoRunHistory implements RunHistoryStore {

	private final MongoCollection<Document> runs;

	private final Duration retention;

	private final int maxRuns;

	private final RunRings rings = new RunRings();

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
		List<RunRecord> opening = this.rings.opening(records);
		for (RunRecord ring : opening) {
			List<Document> old = MembershipDocuments.call("find runs to trim",
					() -> this.runs.find(RunDocuments.ring(ring))
						.sort(RunDocuments.newestFirst())
						.skip(this.maxRuns)
						.limit(RunRings.TRIM_AT_MOST)
						.projection(RunDocuments.slotAndRun())
						.into(new ArrayList<>()));
			if (!old.isEmpty()) {
				MembershipDocuments.call("trim runs", () -> this.runs.deleteMany(RunDocuments.exactly(old)));
			}
		}
		this.rings.trimmed(opening);
		MembershipDocuments.call("save runs",
				() -> this.runs.bulkWrite(RunDocuments.writes(records, this.retention, this.maxRuns),
						new BulkWriteOptions().ordered(false)));
	}

	@Override
	public List<RunRecord> find(RunQuery query) {
		return MembershipDocuments.call("find runs",
				() -> this.runs.find(RunDocuments.filter(query))
					.sort(RunDocuments.newestFirst())
					.limit(query.limit())
					.batchSize(query.limit())
					.map(RunDocuments::toRecord)
					.into(new ArrayList<>()));
	}

}
