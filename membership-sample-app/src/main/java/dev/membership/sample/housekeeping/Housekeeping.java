package dev.membership.sample.housekeeping;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;

import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.membership.Membership;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.scheduling.LeaderOnly;

/**
 * Every node writes short-lived items; the leader alone purges the expired ones and records each run, so anyone can
 * check at {@code GET /housekeeping/runs} that only leaders ran it and that runs never overlapped.
 */
@RestController
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class Housekeeping {

	private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

	static final String ITEMS = "sample_items";

	static final String RUNS = "housekeeping_runs";

	private final MongoTemplate mongo;

	private final Membership membership;

	private final Duration itemLifetime;

	public Housekeeping(MongoTemplate mongo, Membership membership,
			@Value("${sample.items.lifetime:3s}") Duration itemLifetime) {
		this.mongo = mongo;
		this.membership = membership;
		this.itemLifetime = itemLifetime;
	}

	@Scheduled(fixedDelayString = "${sample.items.interval:1s}")
	public void writeItem() {
		this.membership.serverTimeEstimate().ifPresent((now) -> this.mongo.insert(new Document("nodeId", this.membership.nodeId())
			.append("createdAt", Date.from(now))
			.append("expiresAt", Date.from(now.plus(this.itemLifetime))), ITEMS));
	}

	@LeaderOnly(interruptOnRevoke = true)
	@Scheduled(fixedDelayString = "${sample.housekeeping.interval:5s}")
	public void purgeExpired() {
		LeadershipTerm term = LeaderContext.currentTerm().orElseThrow();
		Instant start = now();
		long purged = this.mongo.remove(Query.query(Criteria.where("expiresAt").lt(Date.from(start))), ITEMS)
			.getDeletedCount();
		Instant end = now();
		// fenced: a run that outlived this node's leadership is not recorded as a leader's run
		if (term.isValid()) {
			this.mongo.insert(new HousekeepingRun(this.membership.nodeId(), term.epoch(), start, end, purged), RUNS);
			log.debug("Housekeeping (epoch {}) purged {} expired item(s)", term.epoch(), purged);
		}
		else {
			log.warn("Housekeeping finished after leadership ended (epoch {}); not recorded", term.epoch());
		}
	}

	@GetMapping("/housekeeping/runs")
	public List<HousekeepingRun> runs() {
		return this.mongo.find(new Query().with(Sort.by(Sort.Direction.DESC, "startedAt")).limit(500),
				HousekeepingRun.class, RUNS);
	}

	private Instant now() {
		return this.membership.serverTimeEstimate().orElseGet(Instant::now);
	}

}
