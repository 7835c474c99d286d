package dev.membership.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.membership.nemesis.Checker.Belief;
import dev.membership.nemesis.History.Event;
import dev.membership.nemesis.History.Kind;

/**
 * How long each unit went without a believer: after each heal, bounded (a unit with none
 * at all before a next fault that came sooner than the bound is not judged, and said so),
 * and from each fault's start to the next's, what the fault cost.
 */
final class Leaderless {

	/** The longest time without a believer after a heal, by the fault that healed. */
	final Map<String, Duration> longestWithout = new LinkedHashMap<>();

	/** ... from a fault's start to the next fault's, by kind. */
	final Map<String, Duration> longestDuring = new LinkedHashMap<>();

	private final List<String> violations;

	Leaderless(List<String> violations) {
		this.violations = violations;
	}

	/**
	 * After each heal, how long each unit went without a believer: none when one believed
	 * across it.
	 */
	void check(List<Event> events, List<Belief> beliefs, Set<String> units, Duration bound, long end) {
		String fault = "start";
		long faultAt = 0;
		for (Event e : events) {
			if (e.kind() == Kind.FAULT) {
				during(fault, beliefs, units, faultAt, e.at());
				fault = e.unit().split(" ")[0];
				faultAt = e.at();
			}
			if (e.kind() != Kind.HEALED) {
				continue;
			}
			long next = events.stream()
				.filter((f) -> f.kind() == Kind.FAULT && f.at() > e.at())
				.mapToLong(Event::at)
				.findFirst()
				.orElse(end);
			for (String unit : new TreeSet<>(units)) {
				long gap = longestGap(beliefs, unit, e.at(), next);
				Duration without = Duration.ofNanos(gap);
				this.longestWithout.merge(fault, without, (a, b) -> (a.compareTo(b) >= 0) ? a : b);
				if (without.compareTo(bound) > 0) {
					this.violations.add(unit + " had no believer for " + without + " after the heal of " + fault
							+ " (the bound: " + bound + ")");
				}
				else if (gap == next - e.at()) {
					// none at all before the next fault, which came too soon to tell
					this.violations.add(unit + " had no believer in the " + without + " from the heal of " + fault
							+ " to the next fault, sooner than the bound (" + bound + "): not judged");
				}
			}
		}
	}

	private void during(String fault, List<Belief> beliefs, Set<String> units, long from, long to) {
		if (from == 0) {
			return;
		}
		for (String unit : units) {
			this.longestDuring.merge(fault, Duration.ofNanos(longestGap(beliefs, unit, from, to)),
					(a, b) -> (a.compareTo(b) >= 0) ? a : b);
		}
	}

	/**
	 * The longest stretch of {@code from..to} in which nobody believed it leads
	 * {@code unit}.
	 */
	private static long longestGap(List<Belief> beliefs, String unit, long from, long to) {
		List<long[]> covered = new ArrayList<>();
		for (Belief b : beliefs) {
			if (b.unit().equals(unit) && b.to() > from && b.from() < to) {
				covered.add(new long[] { Math.max(b.from(), from), Math.min(b.to(), to) });
			}
		}
		covered.sort((a, b) -> Long.compare(a[0], b[0]));
		long longest = 0;
		long reached = from;
		for (long[] c : covered) {
			longest = Math.max(longest, c[0] - reached);
			reached = Math.max(reached, c[1]);
		}
		return Math.max(longest, to - reached);
	}

}
