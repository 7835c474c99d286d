package dev.membership.sample.tenants;

import java.time.Duration;
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
import dev.membership.scheduling.ForEachOwnedPartition;

/**
 * Partitioned work: the tenants are split into {@code sample.tenants.partitions}
 * partitions of group {@code tenants}, spread over the live nodes, and each node rolls up
 * the partitions it owns. Every run is recorded when it starts and when it ends, both
 * stamped by the database, so that {@code GET /tenants/runs} shows that no partition ever
 * ran on two nodes at once; each run ends with a fenced write of its partition's
 * checkpoint under the partition's own epoch.
 */
@RestController
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class TenantRollup {

	private static final Logger log = LoggerFactory.getLogger(TenantRollup.class);

	private final TenantData data;

	private final Membership membership;

	private final ObjectProvider<Journal> journal;

	private final Duration workDuration;

	public TenantRollup(TenantData data, Membership membership,
			@Value("${sample.tenants.work-duration:0s}") Duration workDuration, ObjectProvider<Journal> journal) {
		this.data = data;
		this.membership = membership;
		this.journal = journal;
		this.workDuration = workDuration;
	}

	/**
	 * Once per owned partition, each under its partition's term; a move waits for the run
	 * to end.
	 */
	@ForEachOwnedPartition(group = "tenants")
	@Scheduled(fixedDelayString = "${sample.tenants.interval:2s}")
	public void rollup() {
		LeadershipTerm term = LeaderContext.currentTerm();
		this.journal.ifAvailable((journal) -> journal.runs(term));
		try {
			rollup(term);
		}
		finally {
			this.journal.ifAvailable((journal) -> journal.ran(term));
		}
	}

	private void rollup(LeadershipTerm term) {
		int partition = term.partition().orElseThrow();
		String id = this.data.startRun(this.membership.nodeId(), partition, term.epoch());
		Boolean accepted = null;
		try {
			StandInWork.take(this.workDuration);
			// the partition's checkpoint only moves under its newest epoch: a late run of
			// an old owner is rejected
			// in whole microseconds, as the database keeps it: the write's identity
			java.time.Instant at = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS);
			FencedCheckpoint checkpoint = this.data.checkpoint(term, partition, at, this.membership.nodeId());
			accepted = checkpoint.accepted();
			if (accepted) {
				this.journal.ifAvailable(
						(journal) -> journal.wrote("tenant_checkpoints/partition-" + partition, at, term.epoch()));
			}
			else {
				log.warn("Roll-up of partition {} under epoch {} was fenced out: epoch {} has written since", partition,
						term.epoch(), checkpoint.supersededBy());
			}
		}
		finally {
			this.data.endRun(id, accepted);
		}
	}

	/**
	 * One line: each partition's owner as this node knows it ({@code 0=node-a:3}, epoch
	 * after the colon).
	 */
	@GetMapping(path = "/tenants/owners", produces = "text/plain")
	public String owners() {
		StringBuilder line = new StringBuilder();
		var owners = this.membership.partitions("tenants").owners();
		var placed = this.membership.partitions("tenants").placement();
		for (int p = 0; p < this.membership.partitions("tenants").count(); p++) {
			var owner = owners.get(p);
			String who = (owner != null) ? owner.nodeId() + ":" + owner.epoch() : placed.getOrDefault(p, "none");
			line.append((p > 0) ? " " : "").append(p).append('=').append(who);
		}
		return line.append('\n').toString();
	}

	/** Every run that started on any node, newest first (at most 500). */
	@GetMapping("/tenants/runs")
	public List<TenantRun> runs() {
		return this.data.runs();
	}

}
