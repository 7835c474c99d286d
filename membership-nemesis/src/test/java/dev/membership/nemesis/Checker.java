package dev.membership.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.membership.nemesis.History.Event;
import dev.membership.nemesis.History.Kind;

/**
 * Reads a whole run and names every violation: two believers of one unit at any instant
 * (on the one clock of the history, with no tolerance: the engine stamps a belief's end
 * at its deadline, even when the process was paused past it); an epoch of a unit begun by
 * two processes; a fenced write accepted from an epoch older than one already accepted
 * for the same target (in the database's commit order); a write a node was told was
 * accepted and that is not there, or that came under a term its process never believed; a
 * guarded run past the end of a belief its process handed over ({@link Drained}); a unit
 * without a believer longer than the bound after the faults healed.
 */
final class Checker {

	/** A write the fence accepted, in commit order ({@code id}). */
	record Logged(long id, String target, long fence, String byNode, Long at) {

		Logged(long id, String target, long fence, String byNode) {
			this(id, target, fence, byNode, null);
		}

	}

	/** A fenced write whose node was told it was accepted. */
	record Acked(String target, long epoch, String node, Long at) {

		Acked(String target, long epoch, String node) {
			this(target, epoch, node, null);
		}

		/**
		 * From a journal's {@code wrote} line: its target names the write's time in its
		 * row ({@code table/id@micros}) where the node said it.
		 */
		static Acked of(String written, long epoch, String node) {
			int at = written.indexOf('@');
			return (at < 0) ? new Acked(written, epoch, node)
					: new Acked(written.substring(0, at), epoch, node, Long.parseLong(written.substring(at + 1)));
		}

	}

	/**
	 * One belief: {@code process} believed it leads {@code unit} from {@code from} to
	 * {@code to}.
	 */
	record Belief(String process, String unit, long epoch, long from, long to) {
	}

	private final List<String> violations = new ArrayList<>();

	/**
	 * The beliefs the history showed: a fenced write must come from one of their terms.
	 */
	private List<Belief> believed = List.of();

	/** The writes the nodes' journals say the database accepted. */
	private final List<Acked> acked = new ArrayList<>();

	private final Leaderless leaderless = new Leaderless(this.violations);

	List<String> violations() {
		return this.violations;
	}

	/** The longest time without a believer after a heal, by the fault that healed. */
	Map<String, Duration> longestWithout() {
		return this.leaderless.longestWithout;
	}

	/**
	 * The longest time without a believer from a fault's start to the next fault's, by
	 * kind: what the fault cost, unbounded (a leader cut off is replaced after its
	 * lease).
	 */
	Map<String, Duration> longestDuring() {
		return this.leaderless.longestDuring;
	}

	/** The fenced writes the nodes were told were accepted, from their journals. */
	List<Acked> acked() {
		return this.acked;
	}

	/** Checks the beliefs of {@code history}, which ended at {@code end}. */
	Checker beliefs(History history, long end, Set<String> units, Duration bound) {
		List<Event> events = history.events();
		history.malformed().forEach((line) -> this.violations.add("journal: a line not read: " + line));
		List<Belief> beliefs = beliefs(events, end);
		this.believed = beliefs;
		twoBelievers(beliefs);
		epochsOnce(events);
		toldAccepted(events, beliefs);
		this.violations.addAll(Drained.check(events, beliefs, end));
		this.leaderless.check(events, beliefs, units, bound, end);
		return this;
	}

	/** Checks the fenced writes and what their nodes were told of them. */
	Checker writes(List<Logged> log, List<Acked> acked) {
		Map<String, Logged> newest = new HashMap<>();
		for (Logged write : log) {
			Logged before = newest.get(write.target());
			if (before != null && write.fence() < before.fence()) {
				this.violations.add("fence: " + write.target() + " accepted epoch " + write.fence() + " from "
						+ write.byNode() + " (write " + write.id() + ") after epoch " + before.fence() + " from "
						+ before.byNode() + " (write " + before.id() + ")");
			}
			if (before == null || write.fence() >= before.fence()) {
				newest.put(write.target(), write);
			}
		}
		Set<String> terms = new java.util.HashSet<>();
		this.believed.forEach((b) -> terms.add(b.process().split("#")[0] + " " + b.unit() + " " + b.epoch()));
		for (Logged write : log) {
			String unit = unitOf(write.target());
			if (!this.believed.isEmpty() && !terms.contains(write.byNode() + " " + unit + " " + write.fence())) {
				this.violations.add("fence: " + write.target() + " written by " + write.byNode() + " under epoch "
						+ write.fence() + " (write " + write.id() + "), a term of " + unit + " it never believed");
			}
		}
		// identified where both say the write's time: each write a node was told of is
		// that very write in the database's log, one to one
		Set<String> kept = new java.util.HashSet<>();
		log.stream()
			.filter((w) -> w.at() != null)
			.forEach((w) -> kept.add(w.target() + " under epoch " + w.fence() + " by " + w.byNode() + " at " + w.at()));
		if (kept.isEmpty() && !log.isEmpty() && acked.stream().anyMatch((a) -> a.at() != null)) {
			this.violations.add("log: the nodes named their writes, and the database's log names none: the writes "
					+ "cannot be identified, only counted");
		}
		for (Acked a : acked) {
			String write = a.target() + " under epoch " + a.epoch() + " by " + a.node() + " at " + a.at();
			if (a.at() != null && !kept.isEmpty() && !kept.contains(write)) {
				this.violations.add("lost: the write of " + write + " (microseconds) was told it was accepted, and "
						+ "the database has no such write");
			}
		}
		// counted, the others: each write a node was told of is one the database keeps
		Map<String, Integer> written = new HashMap<>();
		log.forEach(
				(w) -> written.merge(w.target() + " under epoch " + w.fence() + " by " + w.byNode(), 1, Integer::sum));
		Map<String, Integer> told = new java.util.TreeMap<>();
		acked.stream()
			.filter((a) -> a.at() == null || kept.isEmpty())
			.forEach((a) -> told.merge(a.target() + " under epoch " + a.epoch() + " by " + a.node(), 1, Integer::sum));
		told.forEach((write, times) -> {
			int there = written.getOrDefault(write, 0);
			if (there < times) {
				this.violations.add("lost: " + times + " writes of " + write + " told they were accepted, and the "
						+ "database has " + there);
			}
		});
		return this;
	}

	/** The unit whose epoch fences writes of {@code target}. */
	private static String unitOf(String target) {
		return target.startsWith("tenant_checkpoints/partition-")
				? "tenants#" + target.substring("tenant_checkpoints/partition-".length()) : "default";
	}

	/**
	 * Every write a process was told was accepted came under a term that process believed
	 * (its own: not its node's earlier process's).
	 */
	private void toldAccepted(List<Event> events, List<Belief> beliefs) {
		Set<String> terms = new java.util.HashSet<>();
		beliefs.forEach((b) -> terms.add(b.process() + " " + b.unit() + " " + b.epoch()));
		for (Event e : events) {
			if (e.kind() == Kind.WROTE) {
				Acked write = Acked.of(e.unit(), e.epoch(), e.node());
				this.acked.add(write);
				if (!terms.contains(e.process() + " " + unitOf(write.target()) + " " + e.epoch())) {
					this.violations.add("fence: " + e.process() + " was told its write of " + write.target()
							+ " under epoch " + e.epoch() + " was accepted, a term of " + unitOf(write.target())
							+ " it never believed");
				}
			}
		}
	}

	/**
	 * Checks what the fenced writes left where the database keeps no log of them (the
	 * MongoDB stand-in): each target's final fence is no older than any epoch whose run
	 * was told its write was accepted.
	 */
	Checker finalFences(Map<String, Long> fences, List<Acked> acked) {
		Map<String, Acked> newest = new HashMap<>();
		for (Acked run : acked) {
			newest.merge(run.target(), run, (a, b) -> (a.epoch() >= b.epoch()) ? a : b);
		}
		newest.forEach((target, run) -> {
			long fence = fences.getOrDefault(target, -1L);
			if (fence < run.epoch()) {
				this.violations.add("fence: " + target + " ends at epoch " + fence + ", older than epoch " + run.epoch()
						+ " whose write " + run.node() + " was told was accepted");
			}
		});
		return this;
	}

	/**
	 * Each belief from its start to its end; a process's exit ends all of its beliefs
	 * (one stamped between the kill and the death: at its own start).
	 */
	List<Belief> beliefs(List<Event> events, long end) {
		Map<String, Event> open = new LinkedHashMap<>();
		Map<String, Long> exited = new HashMap<>();
		events.stream().filter((e) -> e.kind() == Kind.EXITED).forEach((e) -> exited.put(e.process(), e.at()));
		List<Belief> beliefs = new ArrayList<>();
		for (Event e : events) {
			String key = e.process() + " " + e.unit();
			switch (e.kind()) {
				case BELIEVES -> {
					Event before = open.put(key, e);
					if (before != null) {
						this.violations.add("journal: " + e.process() + " believes " + e.unit() + " under epoch "
								+ e.epoch() + " while its belief under epoch " + before.epoch() + " never ended");
						beliefs.add(new Belief(e.process(), e.unit(), before.epoch(), before.at(), end));
					}
					if (exited.getOrDefault(e.process(), Long.MAX_VALUE) <= e.at()) {
						open.remove(key);
						beliefs.add(new Belief(e.process(), e.unit(), e.epoch(), e.at(), e.at()));
					}
				}
				case ENDS -> {
					Event began = open.remove(key);
					if (began == null || began.epoch() != e.epoch()) {
						this.violations.add("journal: " + e.process() + " ends " + e.unit() + " under epoch "
								+ e.epoch() + ((began == null) ? ", which it did not believe"
										: ", believing epoch " + began.epoch()));
					}
					if (began != null) {
						beliefs.add(new Belief(e.process(), e.unit(), began.epoch(), began.at(), e.at()));
					}
				}
				case EXITED -> open.entrySet().removeIf((o) -> {
					boolean mine = o.getValue().process().equals(e.process());
					if (mine) {
						Event began = o.getValue();
						beliefs.add(new Belief(began.process(), began.unit(), began.epoch(), began.at(), e.at()));
					}
					return mine;
				});
				default -> {
				}
			}
		}
		open.values().forEach((b) -> beliefs.add(new Belief(b.process(), b.unit(), b.epoch(), b.at(), end)));
		return beliefs;
	}

	private void twoBelievers(List<Belief> beliefs) {
		for (int i = 0; i < beliefs.size(); i++) {
			Belief a = beliefs.get(i);
			for (int j = i + 1; j < beliefs.size(); j++) {
				Belief b = beliefs.get(j);
				if (a.unit().equals(b.unit()) && !a.process().equals(b.process())
						&& Math.max(a.from(), b.from()) < Math.min(a.to(), b.to())) {
					this.violations.add("two believers of " + a.unit() + ": " + a + " and " + b + ", for "
							+ Duration.ofNanos(Math.min(a.to(), b.to()) - Math.max(a.from(), b.from())));
				}
			}
		}
	}

	private void epochsOnce(List<Event> events) {
		Map<String, String> began = new HashMap<>();
		for (Event e : events) {
			if (e.kind() == Kind.BELIEVES) {
				String first = began.putIfAbsent(e.unit() + " " + e.epoch(), e.process());
				if (first != null && !first.equals(e.process())) {
					this.violations.add(
							"epoch " + e.epoch() + " of " + e.unit() + " begun by " + first + " and by " + e.process());
				}
			}
		}
	}

}
