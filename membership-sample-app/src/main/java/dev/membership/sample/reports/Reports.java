package dev.membership.sample.reports;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.membership.Membership;
import dev.membership.leadership.LeaderContext;
import dev.membership.sample.StandInWork;
import dev.membership.scheduling.LeaderOnly;

/**
 * A cron job whose fires are the cluster's: the leader fires it at each instant of its
 * schedule by the database's clock, once, and a fire a failover missed runs late (within
 * one period). Every run is recorded with its fire's instant, when it starts and when it
 * ends (stamped by the database), so that anyone can check at {@code GET /reports/runs}
 * that no fire ran twice and none was lost.
 */
@RestController
@ConditionalOnBooleanProperty(name = "membership.enabled", matchIfMissing = true)
public class Reports {

	private final ReportData data;

	private final Membership membership;

	private final Duration workDuration;

	public Reports(ReportData data, Membership membership,
			@Value("${sample.reports.work-duration:0s}") Duration workDuration) {
		this.data = data;
		this.membership = membership;
		this.workDuration = workDuration;
	}

	@LeaderOnly
	@Scheduled(cron = "${sample.reports.cron:*/10 * * * * *}", zone = "UTC")
	public void report() {
		// which fire this run is: its key cluster-wide
		Instant fire = LeaderContext.currentFire().orElseThrow();
		String id = this.data.startRun(this.membership.nodeId(), LeaderContext.currentTerm().epoch(), fire);
		try {
			StandInWork.take(this.workDuration);
		}
		finally {
			this.data.endRun(id);
		}
	}

	@GetMapping("/reports/runs")
	public List<ReportRun> runs() {
		return this.data.runs();
	}

}
