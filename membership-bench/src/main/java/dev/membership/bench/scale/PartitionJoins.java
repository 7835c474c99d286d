package dev.membership.bench.scale;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Supplier;

import dev.membership.bench.support.Waits;
import dev.membership.engine.MembershipNode;

/**
 * Several joins, each at another phase of the renewal interval: a new node starts two
 * intervals and {@code k / joins} of one after the cluster settled from the previous one
 * (k = 0, 1, ...), the time until balanced is taken, and the joiner then stops gracefully
 * (its partitions go back) before the next. The keeper reads the node documents once an
 * interval, so the phase decides how long a join waits for that read; the worst of the
 * joins is the figure to hold against one interval.
 */
final class PartitionJoins {

	/** Starts a node with that id, running, and returns it. */
	interface Starter {

		MembershipNode start(String id);

	}

	private final PrintStream log;

	private final Duration interval;

	private final int joins;

	PartitionJoins(PrintStream log, Duration interval, int joins) {
		this.log = log;
		this.interval = interval;
		this.joins = joins;
	}

	/**
	 * Runs the joins; {@code balancedSince} waits until balanced and returns the seconds
	 * since the nanoTime given, or a negative number when not within its bound.
	 * {@code leave} stops a joiner gracefully, out of the running nodes. Returns "worst s
	 * (each s, ...); partitions the last join moved".
	 */
	String run(Starter starter, LongFunction<Double> balancedSince, Consumer<MembershipNode> leave,
			Supplier<Map<Integer, String>> owners) {
		List<Double> times = new ArrayList<>();
		long moved = 0;
		for (int k = 0; k < this.joins; k++) {
			// two intervals first: a node keeps a partition it took less than two
			// intervals ago (the joiner's, back)
			Waits.pause(this.interval.multipliedBy(2).plus(this.interval.multipliedBy(k).dividedBy(this.joins)));
			Map<Integer, String> before = owners.get();
			long start = System.nanoTime();
			MembershipNode joiner = starter.start("joiner-" + k);
			double seconds = balancedSince.apply(start);
			if (seconds < 0) {
				return "not balanced after join " + k;
			}
			times.add(seconds);
			moved = PartitionProbes.moved(before, owners.get());
			this.log.printf("    join %d (2 + %d/%d intervals after settling): balanced after %.2f s%n", k, k,
					this.joins, seconds);
			if (k < this.joins - 1) {
				leave.accept(joiner);
				if (balancedSince.apply(System.nanoTime()) < 0) {
					return "not balanced after joiner " + k + " left";
				}
			}
		}
		double worst = times.stream().mapToDouble(Double::doubleValue).max().orElse(0);
		StringBuilder each = new StringBuilder();
		times.forEach(
				(t) -> each.append((each.length() == 0) ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", t)));
		return String.format(Locale.ROOT, "worst %.2f s (%s); %d", worst, each, moved);
	}

}
