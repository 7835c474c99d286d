package dev.membership.engine.leaving;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.Units;
import dev.membership.engine.term.Run;
import dev.membership.engine.term.Runs;
import dev.membership.engine.term.Unit;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.RunInfo;

/**
 * Runs past their time limit ({@code maxRunTime}): each is said once at WARN with its
 * thread's stack, and its group or partition is handed over as a resign would (the drain
 * waits for the run up to the drain timeout, then the lease is released; the epoch fences
 * what the run still writes). While such a run goes on, this node stays out of the race
 * for its unit ({@link GroupElection#holdOffUntil}): taking it again would hand the work
 * back to a node whose worker is stuck. On the loop, every tick.
 */
public final class HungRuns implements Runnable {

	private static final Logger log = LoggerFactory.getLogger(HungRuns.class);

	private final Runs runs;

	private final Units units;

	private final UnitHandOver handOver;

	private final MonotonicClock clock;

	public HungRuns(Runs runs, Units units, UnitHandOver handOver, MonotonicClock clock) {
		this.runs = runs;
		this.units = units;
		this.handOver = handOver;
		this.clock = clock;
	}

	@Override
	public void run() {
		for (Run run : this.runs.newlyHung()) {
			warn(run);
			GroupElection unit = this.units.get(leaseName(run.info));
			if (unit != null) {
				this.handOver.hung(unit);
			}
		}
	}

	private void warn(Run run) {
		RunInfo info = run.info;
		String unit = leaseName(info);
		Duration ran = Duration.ofNanos(this.clock.nanoTime() - run.startedNanos);
		String message = "Run " + info.id() + " of " + info.job() + " ('" + unit + "', epoch " + info.epoch()
				+ ") has run " + ran.toMillis() + " ms, past its max run time of "
				+ Duration.ofNanos(run.maxRunNanos).toMillis() + " ms: this node hands '" + unit + "' over and stays "
				+ "out of the race for it while the run goes on (fence its writes with the epoch)";
		if (!info.onThread()) {
			log.warn(message);
			return;
		}
		Throwable where = new Throwable("where " + run.thread.getName() + " is now");
		where.setStackTrace(run.thread.getStackTrace());
		log.warn(message, where);
	}

	static String leaseName(RunInfo info) {
		return (info.partition() != null) ? new Unit(info.group(), info.partition(), info.partitions()).leaseName()
				: info.group();
	}

}
