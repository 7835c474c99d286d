package dev.membership.sample.housekeeping;

import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Profile;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.mongo.EpochFence;
import dev.membership.mongo.FencedWriteResult;
import dev.membership.sample.FencedCheckpoint;

/**
 * The housekeeping's data in MongoDB: collections {@code sample_items},
 * {@code housekeeping_runs} and state.
 */
@Component
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@Profile("!postgres")
class MongoHousekeepingData implements HousekeepingData {

	static final String ITEMS = "sample_items";

	static final String RUNS = "housekeeping_runs";

	static final String STATE = "housekeeping_state";

	private final MongoTemplate mongo;

	MongoHousekeepingData(MongoTemplate mongo) {
		this.mongo = mongo;
	}

	@Override
	public void writeItem(String nodeId, Instant createdAt, Instant expiresAt) {
		this.mongo.insert(new Document("nodeId", nodeId).append("createdAt", Date.from(createdAt))
			.append("expiresAt", Date.from(expiresAt)), ITEMS);
	}

	@Override
	public String startRun(String nodeId, long epoch) {
		// a plain string id: never converted to an ObjectId
		String id = UUID.randomUUID().toString();
		// stamped by the database's clock, like the leases: runs of different nodes
		// compare exactly
		this.mongo.upsert(run(id),
				new Update().set("nodeId", nodeId).set("epoch", epoch).currentDate("startedAt").set("purged", 0), RUNS);
		return id;
	}

	@Override
	public long purgeExpiredBefore(Instant before) {
		return this.mongo.remove(Query.query(Criteria.where("expiresAt").lt(Date.from(before))), ITEMS)
			.getDeletedCount();
	}

	@Override
	public FencedCheckpoint checkpoint(LeadershipTerm term, Instant purgedBefore, String nodeId) {
		FencedWriteResult result = EpochFence.of(term)
			.upsert(this.mongo, Query.query(Criteria.where("_id").is("purge")),
					new Update().set("purgedBefore", Date.from(purgedBefore)).set("by", nodeId), STATE);
		return new FencedCheckpoint(result.applied() && !result.isFencedOut(), result.supersededBy().orElse(-1));
	}

	@Override
	public void endRun(String id, long purged, @Nullable Boolean accepted, @Nullable String error) {
		this.mongo.updateFirst(run(id),
				new Update().currentDate("endedAt").set("purged", purged).set("accepted", accepted).set("error", error),
				RUNS);
	}

	@Override
	public List<HousekeepingRun> runs() {
		return this.mongo.find(new Query().with(Sort.by(Sort.Direction.DESC, "startedAt")).limit(500),
				HousekeepingRun.class, RUNS);
	}

	private static Query run(String id) {
		return Query.query(Criteria.where("_id").is(id));
	}

}
