package dev.membership.sample.tenants;

import java.util.Date;
import java.util.List;
import java.util.UUID;

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
 * The roll-up's data in MongoDB: collections {@code tenant_runs} and
 * {@code tenant_checkpoints}.
 */
@Component
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@Profile("!postgres")
class MongoTenantData implements TenantData {

	static final String RUNS = "tenant_runs";

	static final String CHECKPOINTS = "tenant_checkpoints";

	private final MongoTemplate mongo;

	MongoTenantData(MongoTemplate mongo) {
		this.mongo = mongo;
	}

	@Override
	public String startRun(String nodeId, int partition, long epoch) {
		String id = UUID.randomUUID().toString();
		this.mongo.upsert(run(id),
				new Update().set("nodeId", nodeId)
					.set("partition", partition)
					.set("epoch", epoch)
					.currentDate("startedAt"),
				RUNS);
		return id;
	}

	@Override
	public FencedCheckpoint checkpoint(LeadershipTerm term, int partition, java.time.Instant at, String nodeId) {
		FencedWriteResult result = EpochFence.of(term)
			.upsert(this.mongo, Query.query(Criteria.where("_id").is("partition-" + partition)),
					new Update().set("rolledUpAt", Date.from(at)).set("by", nodeId), CHECKPOINTS);
		return new FencedCheckpoint(result.applied() && !result.isFencedOut(), result.supersededBy().orElse(-1));
	}

	@Override
	public void endRun(String id, @Nullable Boolean accepted) {
		this.mongo.updateFirst(run(id), new Update().currentDate("endedAt").set("accepted", accepted), RUNS);
	}

	@Override
	public List<TenantRun> runs() {
		return this.mongo.find(new Query().with(Sort.by(Sort.Direction.DESC, "startedAt")).limit(500), TenantRun.class,
				RUNS);
	}

	private static Query run(String id) {
		return Query.query(Criteria.where("_id").is(id));
	}

}
