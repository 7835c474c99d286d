package dev.membership.sample.housekeeping;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.membership.Membership;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.sample.FencedCheckpoint;
import dev.membership.sample.StandInWork;
import dev.membership.sample.journal.Journal;
import dev.membership.scheduling.LeaderOnly;

/**
 * Every node writes short-lived items; the leader alone purges the expired ones. Every
 * run is recorded when it starts and when it ends (also when it ended after its node
 * stopped leading), both times stamped by the database, so that anyone can check at
 * {@code GET /housekeeping/runs} that runs never overlapped. Each run ends with a fenced
 * write of the purge checkpoint: a run of an older epoch that comes late is rejected
 * there, and the run says so.
 */
@RestController
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class Housekeeping {

	private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

	private final HousekeepingData data;

	private final Membership membership;

	private final ObjectProvider<Journal> journal;

	private final Duration itemLifetime;

	private final Duration workDuration;

	public Housekeeping(HousekeepingData data, Membership membership,
			@Value("${sample.items.lifetime:3s}") Duration itemLifetime,
			@Value("${sample.housekeeping.work-duration:0s}") Duration workDuration, ObjectProvider<Journal> journal) {
		this.data = data;
		this.membership = membership;
		this.journal = journal;
		this.itemLifetime = itemLifetime;
		this.workDuration = workDuration;
	}

	@Scheduled(fixedDelayString = "${sample.items.interval:1s}")
	public void writeItem() {
		this.membership.serverTimeEstimate()
			.ifPresent((now) -> this.data.writeItem(this.membership.nodeId(), now, now.plus(this.itemLifetime)));
	}

	/**
	 * Not interrupted on revocation: a graceful stop lets the run finish, then hands
	 * over.
	 */
	@LeaderOnly
	@Scheduled(fixedDelayString = "${sample.housekeeping.interval:5s}")
	public void purgeExpired() {
		LeadershipTerm term = LeaderContext.currentTerm();
		this.journal.ifAvailable((journal) -> journal.runs(term));
		try {
			purge(term);
		}
		finally {
			this.journal.ifAvailable((journal) -> journal.ran(term));
		}
	}

	private void purge(LeadershipTerm term) {
		// in whole microseconds, as the database keeps it: the checkpoint write's
		// identity
		Instant start = now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
		String id = this.data.startRun(this.membership.nodeId(), term.epoch());
		long purged = 0;
		Boolean accepted = null;
		String error = null;
		try {
			StandInWork.take(this.workDuration);
			purged = this.data.purgeExpiredBefore(start);
			// the checkpoint only moves under the newest epoch: a late run of an old
			// leader is rejected here
			FencedCheckpoint checkpoint = this.data.checkpoint(term, start, this.membership.nodeId());
			accepted = checkpoint.accepted();
			if (accepted) {
				this.journal.ifAvailable((journal) -> journal.wrote("housekeeping_state/purge", start, term.epoch()));
			}
			else {
				log.warn("Housekeeping of epoch {} was fenced out: epoch {} has written since", term.epoch(),
						checkpoint.supersededBy());
			}
		}
		catch (RuntimeException ex) {
			// the database went away, say: neither accepted nor rejected
			error = ex.getMessage();
			throw ex;
		}
		finally {
			this.data.endRun(id, purged, accepted, error);
		}
	}

	@GetMapping("/housekeeping/runs")
	public List<HousekeepingRun> runs() {
		return this.data.runs();
	}

	private Instant now() {
		return this.membership.serverTimeEstimate().orElseGet(Instant::now);
	}

}
