package dev.membership.sample.housekeeping;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import org.bson.Document;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.data.domain.Sort;
import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Criteria;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.membership.Membership;
import dev.membership.sample.StandInWork;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.mongo.EpochFence;
import dev.membership.mongo.FencedWriteResult;

/**
 * Every node writes short-lived items; the leader alone purges the expired ones. Every run is recorded when it starts
 * and when it ends (also when it ended after its node stopped leading), both times stamped by the database, so that
 * anyone can check at {@code GET /housekeeping/runs} that runs never overlapped. Each run ends with a fenced write of the purge checkpoint:
 * a run of an older epoch that comes late is rejected there, and the run says so.
 */
@RestController
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class Housekeeping {

	private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

	static final String ITEMS = "sample_items";

	static final String RUNS = "housekeeping_runs";

	static final String STATE = "housekeeping_state";

	private final MongoTemplate mongo;

	private final Membership membership;

	private final Duration itemLifetime;

	private final Duration workDuration;

	public Housekeeping(MongoTemplate mongo, Membership membership,
			@Value("${sample.items.lifetime:3s}") Duration itemLifetime,
			@Value("${sample.housekeeping.work-duration:0s}") Duration workDuration) {
		this.mongo = mongo;
		this.membership = membership;
		this.itemLifetime = itemLifetime;
		this.workDuration = workDuration;
	}

	@Scheduled(fixedDelayString = "${sample.items.interval:1s}")
	public void writeItem() {
		this.membership.serverTimeEstimate().ifPresent((now) -> this.mongo.insert(new Document("nodeId", this.membership.nodeId())
			.append("createdAt", Date.from(now))
			.append("expiresAt", Date.from(now.plus(this.itemLifetime))), ITEMS));
	}

	/** Not interrupted on revocation: a graceful stop lets the run finish, then hands over. */
	@LeaderOnly
	@Scheduled(fixedDelayString = "${sample.housekeeping.interval:5s}")
	public void purgeExpired() {
		LeadershipTerm term = LeaderContext.currentTerm();
		String id = UUID.randomUUID().toString(); // a plain string id: never converted to an ObjectId
		Instant start = now();
		// stamped by the database's clock, like the leases: runs of different nodes compare exactly
		Query run = Query.query(Criteria.where("_id").is(id));
		this.mongo.upsert(run, new Update().set("nodeId", this.membership.nodeId())
			.set("epoch", term.epoch())
			.currentDate("startedAt")
			.set("purged", 0), RUNS);
		long purged = 0;
		Boolean accepted = null;
		String error = null;
		try {
			StandInWork.take(this.workDuration);
			purged = this.mongo.remove(Query.query(Criteria.where("expiresAt").lt(Date.from(start))), ITEMS)
				.getDeletedCount();
			// the checkpoint only moves under the newest epoch: a late run of an old leader is rejected here
			FencedWriteResult checkpoint = EpochFence.of(term)
				.upsert(this.mongo, Query.query(Criteria.where("_id").is("purge")),
						new Update().set("purgedBefore", Date.from(start)).set("by", this.membership.nodeId()), STATE);
			accepted = checkpoint.applied() && !checkpoint.isFencedOut();
			if (!checkpoint.applied()) {
				log.warn("Housekeeping of epoch {} was fenced out: epoch {} has written since", term.epoch(),
						checkpoint.supersededBy().orElse(-1));
			}
		}
		catch (RuntimeException ex) {
			error = ex.getMessage(); // the database went away, say: neither accepted nor rejected
			throw ex;
		}
		finally {
			this.mongo.updateFirst(run, new Update().currentDate("endedAt")
				.set("purged", purged)
				.set("accepted", accepted)
				.set("error", error), RUNS);
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
