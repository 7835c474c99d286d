package dev.membership.bench.fires;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.engine.MembershipNode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.scheduling.FireSchedules;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.ScheduledJob;
import dev.membership.test.SimulatedCluster;

/**
 * How late scheduled fires start, by period, in virtual time: one node leads a group
 * whose jobs fire every minute, hour, day and week (cron, UTC) for {@code days} of
 * virtual time, at the starter's default timings, on the in-memory store of
 * {@link SimulatedCluster} (answers in no time: the clock estimate is as tight as it
 * gets, and what is left is how the timer is armed). Late: from the fire's instant to its
 * run's start, by the node's estimate of the database's clock.
 */
public final class FireLatenessScenario {

	private final int days;

	private final PrintStream log;

	public FireLatenessScenario(int days, PrintStream log) {
		this.days = days;
		this.log = log;
	}

	public Table run() {
		List<String> crons = List.of("0 * * * * *", "0 0 * * * *", "0 0 2 * * *", "0 0 2 * * MON");
		List<String> names = List.of("every minute", "hourly", "daily (02:00)", "weekly (Monday 02:00)");
		List<List<Double>> late = new ArrayList<>();
		try (SimulatedCluster cluster = SimulatedCluster
			.start(MembershipSettings.builder("bench-node").groups(Set.of("default")).build())) {
			MembershipNode node = cluster.node();
			List<AutoCloseable> jobs = new ArrayList<>();
			for (int i = 0; i < crons.size(); i++) {
				List<Double> lateness = new ArrayList<>();
				late.add(lateness);
				jobs.add(node.schedule(new ScheduledJob("default", "bench#job" + i,
						FireSchedules.cron(crons.get(i), ZoneOffset.UTC), FirePolicy.DEFAULTS, (fire) -> {
							LeadershipTerm.Execution run = fire.tryBegin(false, Duration.ZERO);
							if (run != null) {
								Instant now = node.serverTimeEstimate().orElseThrow();
								lateness.add(Duration.between(fire.instant(), now).toNanos() / 1e6);
								run.close();
							}
						})));
			}
			for (int day = 0; day < this.days; day++) {
				cluster.advance(Duration.ofDays(1));
				if (day % 7 == 6) {
					this.log.printf("  %d virtual days%n", day + 1);
				}
			}
			for (AutoCloseable job : jobs) {
				job.close();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		Table table = new Table("How late fires start, by period (" + this.days + " virtual days, default timings)",
				"schedule", "fires", "late p50", "late p99", "late max");
		for (int i = 0; i < crons.size(); i++) {
			Stats stats = new Stats(late.get(i));
			table.row(names.get(i) + " `" + crons.get(i) + "`", stats.count(),
					stats.count() == 0 ? "-" : Table.ms(stats.median()),
					stats.count() == 0 ? "-" : Table.ms(stats.percentile(99)),
					stats.count() == 0 ? "-" : Table.ms(stats.max()));
		}
		return table;
	}

}
