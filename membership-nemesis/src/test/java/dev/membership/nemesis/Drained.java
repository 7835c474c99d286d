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
 * The guarded runs of a history: each ran under a term its own process believed, began
 * while it believed it, and none outlived a belief its process handed over (a graceful
 * stop, a resign, a move: the work drains first). A run may outlive a belief that ended
 * at its deadline (a pause, a cut): the fence guards what it writes then. A run a process
 * was killed in ends at its exit.
 * <p>
 * A run's begin is stamped by the work itself, just after the guard let it in: a run
 * stamped up to {@link #STAMP_SLACK} after its belief ended, or after it in a process
 * paused ({@link Fault#PAUSE}) in between, may have been let in before; one stamped later
 * began outside its belief (a guard that ignores its deadline), and two nodes ran the
 * work at once.
 */
final class Drained {

	/**
	 * How long after the guard let a run in its work may stamp its begin (a collection in
	 * between, say): far below what a guard that ignores its deadline shows.
	 */
	static final long STAMP_SLACK = 50_000_000;

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
		Map<String, List<long[]>> paused = paused(events, end);
		Map<String, Event> running = new LinkedHashMap<>();
		for (Event e : events) {
			String key = e.process() + " " + e.unit() + " " + e.epoch();
			switch (e.kind()) {
				case RUNS -> running.put(key, e);
				case RAN -> {
					Event began = running.remove(key);
					ran(key, (began != null) ? began.at() : e.at(), e.at(), believed, gave, violations);
					if (began != null) {
						began(began, believed.get(key), paused, violations);
					}
				}
				case EXITED -> running.entrySet().removeIf((r) -> {
					boolean mine = r.getValue().process().equals(e.process());
					if (mine) {
						ran(r.getKey(), r.getValue().at(), e.at(), believed, gave, violations);
						began(r.getValue(), believed.get(r.getKey()), paused, violations);
					}
					return mine;
				});
				default -> {
				}
			}
		}
		running.forEach((key, began) -> {
			ran(key, began.at(), end, believed, gave, violations);
			began(began, believed.get(key), paused, violations);
		});
		return violations;
	}

	/** A run's begin against its belief (none: {@link #ran} said so already). */
	private static void began(Event run, Belief belief, Map<String, List<long[]>> paused, List<String> violations) {
		if (belief == null) {
			return;
		}
		long at = run.at();
		boolean before = at < belief.from();
		boolean after = at > belief.to() + STAMP_SLACK && paused.getOrDefault(run.node(), List.of())
			.stream()
			.noneMatch((p) -> p[0] <= at && p[1] >= belief.to());
		if (before || after) {
			violations.add("begin: " + run.process() + " began a run of " + run.unit() + " under epoch " + run.epoch()
					+ " at " + at + ", outside its belief (from " + belief.from() + " to " + belief.to()
					+ "): a run begins while its term is believed");
		}
	}

	/** Each node's pauses ({@link Fault#PAUSE}): from the fault to its heal. */
	private static Map<String, List<long[]>> paused(List<Event> events, long end) {
		Map<String, List<long[]>> paused = new HashMap<>();
		Map<String, Long> since = new HashMap<>();
		for (Event e : events) {
			if (e.kind() == Kind.FAULT && e.unit().startsWith(Fault.PAUSE.name() + " ")) {
				since.put(e.unit().substring(Fault.PAUSE.name().length() + 1), e.at());
			}
			else if (e.kind() == Kind.HEALED && e.unit().startsWith(Fault.PAUSE.name())) {
				since.forEach((node, from) -> paused.computeIfAbsent(node, (n) -> new ArrayList<>())
					.add(new long[] { from, e.at() }));
				since.clear();
			}
		}
		since.forEach(
				(node, from) -> paused.computeIfAbsent(node, (n) -> new ArrayList<>()).add(new long[] { from, end }));
		return paused;
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
