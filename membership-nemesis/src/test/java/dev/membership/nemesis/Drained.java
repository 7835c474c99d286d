package dev.membership.nemesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.membership.nemesis.Checker.Belief;
import dev.membership.nemesis.History.Event;
import dev.membership.nemesis.History.Kind;

/**
 * The guarded runs of a history: each ran under a term its own process believed, and none
 * outlived a belief its process handed over (a graceful stop, a resign, a move: the work
 * drains first). A run may outlive a belief that ended at its deadline (a pause, a cut):
 * the fence guards what it writes then. A run a process was killed in ends at its exit.
 */
final class Drained {

	private Drained() {
	}

	/** The violations of {@code events}' runs, against {@code beliefs}. */
	static List<String> check(List<Event> events, List<Belief> beliefs, long end) {
		Map<String, Belief> believed = new HashMap<>();
		beliefs.forEach((b) -> believed.put(b.process() + " " + b.unit() + " " + b.epoch(), b));
		Set<String> gave = new HashSet<>();
		events.stream()
			.filter((e) -> e.kind() == Kind.GAVE)
			.forEach((e) -> gave.add(e.process() + " " + e.unit() + " " + e.epoch()));
		List<String> violations = new ArrayList<>();
		Map<String, Event> running = new LinkedHashMap<>();
		for (Event e : events) {
			String key = e.process() + " " + e.unit() + " " + e.epoch();
			switch (e.kind()) {
				case RUNS -> running.put(key, e);
				case RAN -> {
					Event began = running.remove(key);
					ran(key, (began != null) ? began.at() : e.at(), e.at(), believed, gave, violations);
				}
				case EXITED -> running.entrySet().removeIf((r) -> {
					boolean mine = r.getValue().process().equals(e.process());
					if (mine) {
						ran(r.getKey(), r.getValue().at(), e.at(), believed, gave, violations);
					}
					return mine;
				});
				default -> {
				}
			}
		}
		running.forEach((key, began) -> ran(key, began.at(), end, believed, gave, violations));
		return violations;
	}

	private static void ran(String key, long from, long to, Map<String, Belief> believed, Set<String> gave,
			List<String> violations) {
		String[] run = key.split(" ");
		Belief belief = believed.get(key);
		if (belief == null) {
			violations
				.add("run: " + run[0] + " ran " + run[1] + " under epoch " + run[2] + ", a term it never believed");
		}
		else if (gave.contains(key) && to > belief.to()) {
			violations.add("drain: " + run[0] + " ran " + run[1] + " under epoch " + run[2] + " from " + from + " to "
					+ to + ", " + java.time.Duration.ofNanos(to - belief.to()) + " past the end of the belief it "
					+ "handed over (at " + belief.to() + "): work drains first (unless the drain timed out)");
		}
	}

}
