package dev.membership.mongo;

import java.time.Duration;
import java.util.List;

import org.bson.Document;

import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;
import dev.membership.spi.RunRings;

/**
 * The MongoDB run history, written once over {@link DocumentDatabase} for both drivers
 * ({@link MongoRunHistory}, {@link ReactiveMongoRunHistory}).
 */
abstract class DocumentsRunHistory implements RunHistoryStore {

	private final DocumentDatabase database;

	private final Documents runs;

	private final Duration retention;

	private final int maxRuns;

	private final RunRings rings = new RunRings();

	DocumentsRunHistory(DocumentDatabase database, String collection, Duration retention, int maxRuns) {
		this.database = database;
		this.runs = database.collection(collection);
		this.retention = retention;
		this.maxRuns = maxRuns;
	}

	@Override
	public void initialize() {
		this.database.call("initialize runs", () -> {
			this.runs.createIndexes(RunDocuments.indexes());
			return null;
		});
	}

	@Override
	public void save(List<RunRecord> records) {
		if (records.isEmpty()) {
			return;
		}
		List<RunRecord> opening = this.rings.opening(records);
		for (RunRecord ring : opening) {
			List<Document> old = this.database.call("find runs to trim",
					() -> this.runs.find(Documents.Find.of(RunDocuments.ring(ring))
						.sort(RunDocuments.newestFirst())
						.skip(this.maxRuns)
						.limit(RunRings.TRIM_AT_MOST)
						.projection(RunDocuments.slotAndRun())));
			if (!old.isEmpty()) {
				this.database.call("trim runs", () -> this.runs.deleteMany(RunDocuments.exactly(old)));
			}
		}
		this.rings.trimmed(opening);
		this.database.call("save runs",
				() -> this.runs.bulkWrite(RunDocuments.writes(records, this.retention, this.maxRuns)));
	}

	@Override
	public List<RunRecord> find(RunQuery query) {
		return this.database
			.call("find runs",
					() -> this.runs.find(Documents.Find.of(RunDocuments.filter(query))
						.sort(RunDocuments.newestFirst())
						.limit(query.limit())
						.batchSize(query.limit())).stream().map(RunDocuments::toRecord).toList());
	}

}
