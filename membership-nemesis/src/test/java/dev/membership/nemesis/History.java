package dev.membership.nemesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything that happened in a run, on one clock (the host's monotonic clock, which a
 * node's {@code System.nanoTime()} reads as well while only its wall clock is faked):
 * what each node process believed, from its journal, and what the nemesis did.
 * <p>
 * A process whose clocks run at a rate ({@link #rate}: its monotonic clock faked too)
 * stamps its journal on a clock of its own. Its stamps are brought onto the host's by the
 * rate the nemesis gave it and by the collector's reading of each line (the host's clock
 * when the line arrived, never before the event): a stamp {@code s} is at
 * {@code a + (s - s0) / rate}, with {@code a} the latest offset every line allows. Each
 * event is then placed no earlier than it happened, and later by at most the shortest
 * time any of the process's lines took to arrive.
 */
final class History {

	enum Kind {

		/** A node process began believing it leads {@code unit} under {@code epoch}. */
		BELIEVES,

		/** ... and ended (for a missed deadline: at the deadline). */
		ENDS,

		/**
		 * A node process was told its fenced write of {@code unit} (a target:
		 * {@code table/id}) under {@code epoch} was accepted.
		 */
		WROTE,

		/** A node process began a guarded run of {@code unit} under {@code epoch}. */
		RUNS,

		/** ... and ended it. */
		RAN,

		/**
		 * A node process handed {@code unit}, held under {@code epoch}, over: its work
		 * drained first.
		 */
		GAVE,

		/** A node process ended (killed, or stopped): nothing it believed outlives it. */
		EXITED,

		/** A fault began ({@code unit}: its kind and target). */
		FAULT,

		/** The fault healed (a node that was ended starts again). */
		HEALED

	}

	/**
	 * One event: {@code process} is a node's name and incarnation ({@code n1#2}), or the
	 * nemesis.
	 */
	record Event(long at, Kind kind, String process, String unit, long epoch) {

		String node() {
			int hash = this.process.indexOf('#');
			return (hash < 0) ? this.process : this.process.substring(0, hash);
		}

	}

	private final List<Event> events = new ArrayList<>();

	private final List<String> malformed = new ArrayList<>();

	private long writes;

	/** The rate of each process whose clocks run at one. */
	private final Map<String, Double> rates = new HashMap<>();

	/** Their journals' events, on their own clocks, each with when it arrived. */
	private final Map<String, List<Stamped>> own = new HashMap<>();

	private record Stamped(Event event, long arrived) {
	}

	/**
	 * Process {@code process}'s clocks run at {@code rate} (1: the host's).
	 */
	synchronized void rate(String process, double rate) {
		if (rate != 1) {
			this.rates.put(process, rate);
		}
	}

	synchronized void add(Event event) {
		this.events.add(event);
	}

	/** How many writes the journals told of so far: whether the database takes them. */
	synchronized long writes() {
		return this.writes;
	}

	void add(long at, Kind kind, String process, String unit, long epoch) {
		add(new Event(at, kind, process, unit, epoch));
	}

	/** Every event so far, on the host's clock, in the order of their instants. */
	synchronized List<Event> events() {
		List<Event> all = new ArrayList<>(this.events);
		this.own.forEach((process, stamped) -> all.addAll(onHostClock(stamped, this.rates.get(process))));
		all.sort((a, b) -> Long.compare(a.at(), b.at()));
		return all;
	}

	private static List<Event> onHostClock(List<Stamped> stamped, double rate) {
		long first = stamped.get(0).event().at();
		long offset = Long.MAX_VALUE;
		for (Stamped s : stamped) {
			offset = Math.min(offset, s.arrived() - (long) Math.ceil((s.event().at() - first) / rate));
		}
		List<Event> events = new ArrayList<>();
		for (Stamped s : stamped) {
			Event e = s.event();
			events.add(new Event(offset + (long) Math.ceil((e.at() - first) / rate), e.kind(), e.process(), e.unit(),
					e.epoch()));
		}
		return events;
	}

	/** How a journal line that could not be read is kept in a history's file. */
	static final String MALFORMED = "MALFORMED ";

	/**
	 * A history as a run wrote it ({@link #events}, a line an event, then the
	 * {@link #malformed} lines), to be checked again. A drifting process's events are as
	 * the run placed them on the host's clock.
	 */
	static History parse(List<String> lines) {
		java.util.regex.Pattern event = java.util.regex.Pattern
			.compile("Event\\[at=(-?\\d+), kind=(\\w+), process=([^,]*), unit=(.*), epoch=(-?\\d+)]");
		History history = new History();
		for (String line : lines) {
			if (line.startsWith(MALFORMED)) {
				history.malformed.add(line.substring(MALFORMED.length()));
				continue;
			}
			java.util.regex.Matcher m = event.matcher(line);
			if (!m.matches()) {
				throw new IllegalArgumentException("not an event of a history: " + line);
			}
			history.add(Long.parseLong(m.group(1)), Kind.valueOf(m.group(2)), m.group(3), m.group(4),
					Long.parseLong(m.group(5)));
		}
		return history;
	}

	/**
	 * Whether {@code process}'s journal says it believes it leads some unit now.
	 */
	synchronized boolean believes(String process) {
		Map<String, Integer> open = new HashMap<>();
		List<Event> mine = this.own.containsKey(process) ? this.own.get(process).stream().map(Stamped::event).toList()
				: this.events;
		for (Event e : mine) {
			if (e.process().equals(process) && (e.kind() == Kind.BELIEVES || e.kind() == Kind.ENDS)) {
				open.merge(e.unit(), (e.kind() == Kind.BELIEVES) ? 1 : -1, Integer::sum);
			}
		}
		return open.values().stream().anyMatch((n) -> n > 0);
	}

	/**
	 * The process whose journal says it believes it leads {@code unit} now, if one does.
	 */
	synchronized java.util.Optional<String> believer(String unit) {
		Map<String, Integer> open = new HashMap<>();
		for (Event e : this.events) {
			if (e.unit().equals(unit) && (e.kind() == Kind.BELIEVES || e.kind() == Kind.ENDS)) {
				open.merge(e.process(), (e.kind() == Kind.BELIEVES) ? 1 : -1, Integer::sum);
			}
		}
		return open.entrySet().stream().filter((o) -> o.getValue() > 0).map(Map.Entry::getKey).findFirst();
	}

	/**
	 * Whether {@code process}'s journal says a run of {@code unit} ended at or after
	 * {@code since} (the host's clock).
	 */
	synchronized boolean ranSince(String process, String unit, long since) {
		return this.events.stream()
			.anyMatch((e) -> e.kind() == Kind.RAN && e.process().equals(process) && e.unit().equals(unit)
					&& e.at() - since >= 0);
	}

	/**
	 * Reads one line of a node's output, which arrived at {@code arrived} (the host's
	 * clock): its journal's lines are events of {@code process}.
	 */
	void read(String process, String line, long arrived) {
		if (!line.startsWith("JOURNAL ")) {
			return;
		}
		String[] parts = line.split(" ");
		try {
			Kind kind = switch (parts[1]) {
				case "believes" -> Kind.BELIEVES;
				case "ends" -> Kind.ENDS;
				case "wrote" -> Kind.WROTE;
				case "runs" -> Kind.RUNS;
				case "ran" -> Kind.RAN;
				case "gave" -> Kind.GAVE;
				default -> null;
			};
			if (parts.length != 5 || kind == null) {
				throw new IllegalArgumentException("not a journal line");
			}
			Event event = new Event(Long.parseLong(parts[4]), kind, process, parts[2], Long.parseLong(parts[3]));
			synchronized (this) {
				if (kind == Kind.WROTE) {
					this.writes++;
				}
				if (this.rates.containsKey(process)) {
					this.own.computeIfAbsent(process, (p) -> new ArrayList<>()).add(new Stamped(event, arrived));
				}
				else {
					this.events.add(event);
				}
			}
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				this.malformed.add(process + ": " + line);
			}
		}
	}

	/**
	 * The journal lines that could not be read: each a violation (a belief unaccounted
	 * for).
	 */
	synchronized List<String> malformed() {
		return new ArrayList<>(this.malformed);
	}

}
