package dev.membership.sample.reports;

import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Profile;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.stereotype.Component;

/** The report job's runs in MongoDB: collection {@code report_runs}. */
@Component
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
@Profile("!postgres")
class MongoReportData implements ReportData {

	static final String RUNS = "report_runs";

	private final MongoTemplate mongo;

	MongoReportData(MongoTemplate mongo) {
		this.mongo = mongo;
	}

	@Override
	public String startRun(String nodeId, long epoch, Instant fireAt) {
		String id = UUID.randomUUID().toString();
		this.mongo.upsert(run(id),
				new Update().set("nodeId", nodeId)
					.set("epoch", epoch)
					.set("fireAt", Date.from(fireAt))
					.currentDate("startedAt"),
				RUNS);
		return id;
	}

	@Override
	public void endRun(String id) {
		this.mongo.updateFirst(run(id), new Update().currentDate("endedAt"), RUNS);
	}

	@Override
	public List<ReportRun> runs() {
		return this.mongo.find(new Query().with(Sort.by(Sort.Direction.DESC, "startedAt")).limit(500), ReportRun.class,
				RUNS);
	}

	private static Query run(String id) {
		return Query.query(Criteria.where("_id").is(id));
	}

}
