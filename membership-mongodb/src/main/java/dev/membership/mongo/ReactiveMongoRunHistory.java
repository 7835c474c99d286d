package dev.membership.mongo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.mongodb.ReadPreference;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.reactivestreams.client.MongoCollection;
import com.mongodb.reactivestreams.client.MongoDatabase;
import org.bson.Document;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;
import dev.membership.spi.RunRings;

/**
 * {@link MongoRunHistory} on the application's reactive driver. Each call blocks only the
 * membership node's loop (a write) or the actuator's request thread (a read), bounded by
 * the driver's operation timeout.
 */
public class ReactiveMongoRunHistory implements RunHistoryStore {

	private final MongoCollection<Document> runs;

	private final Duration retention;

	private final int maxRuns;

	private final RunRings rings = new RunRings();

	private final Duration blockAtMost;

	public ReactiveMongoRunHistory(MongoDatabase database, String collection, Duration retention, int maxRuns,
			Duration operationTimeout) {
		this.runs = database.withTimeout(operationTimeout.toMillis(), TimeUnit.MILLISECONDS)
			.withReadPreference(ReadPreference.primary())
			.getCollection(collection);
		this.retention = retention;
		this.maxRuns = maxRuns;
		this.blockAtMost = operationTimeout.plusMillis(250);
	}

	@Override
	public void initialize() {
		MembershipDocuments.call("initialize runs",
				() -> Flux.from(this.runs.createIndexes(RunDocuments.indexes())).collectList().block(this.blockAtMost));
	}

	@Override
	public void save(List<RunRecord> records) {
		if (records.isEmpty()) {
			return;
		}
		List<RunRecord> opening = this.rings.opening(records);
		for (RunRecord ring : opening) {
			List<Document> old = MembershipDocuments
				.call("find runs to trim",
						() -> Flux.from(this.runs.find(RunDocuments.ring(ring))
							.sort(RunDocuments.newestFirst())
							.skip(this.maxRuns)
							.limit(RunRings.TRIM_AT_MOST)
							.projection(RunDocuments.slotAndRun())).collectList().block(this.blockAtMost));
			if (old != null && !old.isEmpty()) {
				MembershipDocuments.call("trim runs",
						() -> Mono.from(this.runs.deleteMany(RunDocuments.exactly(old))).block(this.blockAtMost));
			}
		}
		this.rings.trimmed(opening);
		MembershipDocuments.call("save runs",
				() -> Mono.from(this.runs.bulkWrite(RunDocuments.writes(records, this.retention, this.maxRuns),
						new BulkWriteOptions().ordered(false)))
					.block(this.blockAtMost));
	}

	@Override
	public List<RunRecord> find(RunQuery query) {
		List<RunRecord> found = MembershipDocuments.call("find runs",
				() -> Flux
					.from(this.runs.find(RunDocuments.filter(query))
						.sort(RunDocuments.newestFirst())
						.limit(query.limit())
						.batchSize(query.limit()))
					.map(RunDocuments::toRecord)
					.collectList()
					.block(this.blockAtMost));
		return (found != null) ? found : List.of();
	}

}
