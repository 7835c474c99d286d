package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.IndexModel;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.ReplaceOneModel;
import com.mongodb.client.model.ReplaceOptions;
import com.mongodb.client.model.Sorts;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;

/**
 * The run history's documents, for both drivers: one per run, in a ring of
 * {@code maxRuns} slots per job, partition and node process ({@code _id}), so that the
 * history stays bounded by count with no extra call but a trim as a ring opens
 * ({@link dev.membership.spi.RunRings}); an {@code expireAt} that a TTL index acts on
 * bounds it by age. A run's start replaces its slot's document; its end updates that
 * document only while it is still this run's.
 */
final class RunDocuments {

	static final String TTL_INDEX = "membership_runs_expiry";

	private RunDocuments() {
	}

	static List<IndexModel> indexes() {
		return List.of(
				new IndexModel(Indexes.ascending("expireAt"),
						new IndexOptions().name(TTL_INDEX).expireAfter(0L, java.util.concurrent.TimeUnit.SECONDS)),
				new IndexModel(Indexes.descending("startedAt"), new IndexOptions().name("membership_runs_newest")),
				new IndexModel(Indexes.compoundIndex(Indexes.ascending("job"), Indexes.descending("startedAt")),
						new IndexOptions().name("membership_runs_by_job")),
				new IndexModel(Indexes.compoundIndex(Indexes.ascending("group"), Indexes.ascending("partition"),
						Indexes.descending("startedAt")), new IndexOptions().name("membership_runs_by_group")),
				new IndexModel(Indexes.compoundIndex(Indexes.ascending("node"), Indexes.descending("startedAt")),
						new IndexOptions().name("membership_runs_by_node")));
	}

	/**
	 * The writes of one batch: unordered, all of one kind, so the drivers send them as
	 * one command.
	 */
	static List<WriteModel<Document>> writes(List<RunRecord> records, Duration retention, int maxRuns) {
		List<WriteModel<Document>> writes = new ArrayList<>(records.size());
		for (RunRecord record : records) {
			Bson slot = Filters.eq("_id", slot(record, maxRuns));
			if (record.first()) {
				writes.add(new ReplaceOneModel<>(slot, whole(record, retention, maxRuns),
						new ReplaceOptions().upsert(true)));
			}
			else {
				writes.add(new UpdateOneModel<>(Filters.and(slot, Filters.eq("run", record.id())),
						Updates.combine(Updates.set("endedAt", date(record.endedAt())),
								Updates.set("outcome", tag(record.outcome())), Updates.set("error", record.error()))));
			}
		}
		return writes;
	}

	static String slot(RunRecord record, int maxRuns) {
		long slot = Math.floorMod(record.sequence() - 1, (long) maxRuns);
		return record.process() + ":" + record.job() + ":" + ((record.partition() != null) ? record.partition() : "-")
				+ ":" + slot;
	}

	private static Document whole(RunRecord record, Duration retention, int maxRuns) {
		return new Document("_id", slot(record, maxRuns)).append("run", record.id())
			.append("process", record.process())
			.append("sequence", record.sequence())
			.append("job", record.job())
			.append("group", record.group())
			.append("partition", record.partition())
			.append("node", record.nodeId())
			.append("epoch", record.epoch())
			.append("startedAt", date(record.startedAt()))
			.append("endedAt", date(record.endedAt()))
			.append("outcome", tag(record.outcome()))
			.append("error", record.error())
			.append("requestedBy", record.requestedBy())
			.append("requestedFrom", record.requestedFrom())
			.append("fireAt", date(record.fireAt()))
			.append("expireAt", date(record.startedAt().plus(retention)));
	}

	static Bson filter(RunQuery query) {
		List<Bson> criteria = new ArrayList<>();
		if (query.job() != null) {
			criteria.add(Filters.eq("job", query.job()));
		}
		if (query.group() != null) {
			criteria.add(Filters.eq("group", query.group()));
		}
		if (query.partition() != null) {
			criteria.add(Filters.eq("partition", query.partition()));
		}
		if (query.nodeId() != null) {
			criteria.add(Filters.eq("node", query.nodeId()));
		}
		if (query.since() != null) {
			criteria.add(Filters.gte("startedAt", date(query.since())));
		}
		return criteria.isEmpty() ? new Document() : Filters.and(criteria);
	}

	/** The runs of {@code record}'s job and partition, of every process. */
	static Bson ring(RunRecord record) {
		return Filters.and(Filters.eq("job", record.job()), Filters.eq("partition", record.partition()));
	}

	/**
	 * What a trim reads of each run past the newest: enough to delete it only while its
	 * slot still holds it.
	 */
	static Bson slotAndRun() {
		return Projections.include("_id", "run");
	}

	/**
	 * Exactly the runs {@code found} read, not a newer one that took a slot meanwhile.
	 */
	static Bson exactly(List<Document> found) {
		return Filters.or(found.stream()
			.map((d) -> Filters.and(Filters.eq("_id", d.get("_id")), Filters.eq("run", d.get("run"))))
			.toList());
	}

	static Bson newestFirst() {
		return Sorts.descending("startedAt");
	}

	static RunRecord toRecord(Document document) {
		String outcome = document.getString("outcome");
		Number partition = document.get("partition", Number.class);
		return new RunRecord(document.getString("run"), document.getString("process"),
				document.get("sequence", Number.class).longValue(), document.getString("job"),
				document.getString("group"), (partition != null) ? partition.intValue() : null,
				document.getString("node"), document.get("epoch", Number.class).longValue(),
				document.getDate("startedAt").toInstant(), instant(document.getDate("endedAt")),
				(outcome != null) ? RunOutcome.valueOf(outcome.toUpperCase(Locale.ROOT)) : null,
				document.getString("error"), document.getString("requestedBy"), document.getString("requestedFrom"),
				instant(document.getDate("fireAt")), false);
	}

	private static @Nullable Date date(@Nullable Instant instant) {
		return (instant != null) ? Date.from(instant) : null;
	}

	private static @Nullable Instant instant(@Nullable Date date) {
		return (date != null) ? date.toInstant() : null;
	}

	private static @Nullable String tag(@Nullable RunOutcome outcome) {
		return (outcome != null) ? outcome.tag() : null;
	}

}
