package dev.membership.bench.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoClient;

import dev.membership.bench.scale.ScaleScenario.Config;
import dev.membership.bench.scale.StoreMeter.NodeCounts;
import dev.membership.bench.support.SharedRuntimes;
import dev.membership.engine.MembershipNode;

import static dev.membership.bench.scale.ScaleProbes.cell;
import static dev.membership.bench.scale.ScaleProbes.eventBound;
import static dev.membership.bench.scale.ScaleProbes.listsLive;
import static dev.membership.bench.scale.ScaleProbes.newNode;
import static dev.membership.bench.scale.ScaleProbes.pollInterval;
import static dev.membership.bench.scale.ScaleProbes.untilEvery;
import static dev.membership.bench.scale.ScaleScenario.GROUP;

/**
 * The joins and crashes of one size of {@link ScaleScenario}, one after another, each
 * timed until all see it.
 */
final class ScaleChurn {

	private final PrintStream log;

	private final int joins;

	private final int crashes;

	ScaleChurn(PrintStream log, int joins, int crashes) {
		this.log = log;
		this.joins = joins;
		this.crashes = crashes;
	}

	/**
	 * Joins one after another: from start() until every running node lists the new one
	 * live.
	 */
	String joins(Config config, MongoClient client, SharedRuntimes runtimes, List<MembershipNode> running,
			List<MembershipNode> started) {
		List<Double> times = new ArrayList<>();
		int timedOut = 0;
		Duration bound = eventBound(config);
		for (int j = 0; j < this.joins; j++) {
			String id = "joiner-" + j;
			MembershipNode joiner = newNode(config, id, client, runtimes.runtime(new NodeCounts()));
			started.add(joiner);
			running.add(joiner);
			long t = System.nanoTime();
			joiner.start();
			boolean ok = untilEvery(running, (n) -> listsLive(n, id), bound, pollInterval(running.size(), 100));
			double ms = (System.nanoTime() - t) / 1e6;
			this.log.printf("  %s listed live everywhere%s after %.0f ms%n", id, ok ? "" : " NOT", ms);
			if (ok) {
				times.add(ms);
			}
			else {
				timedOut++;
			}
		}
		return cell(times, timedOut, bound);
	}

	/**
	 * Crashes one after another: from halt() of a non-leader until no running node lists
	 * it live.
	 */
	String crashes(Config config, List<MembershipNode> running) {
		List<Double> times = new ArrayList<>();
		int timedOut = 0;
		Duration bound = eventBound(config);
		for (int c = 0; c < this.crashes; c++) {
			MembershipNode victim = null;
			for (int i = running.size() / 2; i < running.size() + running.size() / 2; i++) {
				MembershipNode n = running.get(i % running.size());
				if (!n.isLeader(GROUP)) {
					victim = n;
					break;
				}
			}
			if (victim == null) {
				break;
			}
			running.remove(victim);
			String id = victim.nodeId();
			long t = System.nanoTime();
			victim.halt();
			boolean ok = untilEvery(running, (n) -> !listsLive(n, id), bound, pollInterval(running.size(), 100));
			double ms = (System.nanoTime() - t) / 1e6;
			this.log.printf("  %s (crashed) unlisted everywhere%s after %.0f ms%n", id, ok ? "" : " NOT", ms);
			if (ok) {
				times.add(ms);
			}
			else {
				timedOut++;
			}
		}
		return cell(times, timedOut, bound);
	}

}
