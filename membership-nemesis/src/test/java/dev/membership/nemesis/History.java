package dev.membership.nemesis;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything that happened in a run, on one clock (the host's monotonic clock, which a
 * node's {@code System.nanoTime()} reads as well while only its wall clock is faked):
 * what each node process believed, from its journal, and what the nemesis did.
 */
final class History {

	enum Kind {

		/** A node process began believing it leads {@code unit} under {@code epoch}. */
		BELIEVES,

		/** ... and ended (for a missed deadline: at the deadline). */
		ENDS,

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

	synchronized void add(Event event) {
		this.events.add(event);
	}

	void add(long at, Kind kind, String process, String unit, long epoch) {
		add(new Event(at, kind, process, unit, epoch));
	}

	/** Every event so far, in the order of their instants. */
	synchronized List<Event> events() {
		List<Event> all = new ArrayList<>(this.events);
		all.sort((a, b) -> Long.compare(a.at(), b.at()));
		return all;
	}

	/**
	 * Reads one line of a node's output: its journal's lines are events of
	 * {@code process}.
	 */
	void read(String process, String line) {
		if (!line.startsWith("JOURNAL ")) {
			return;
		}
		String[] parts = line.split(" ");
		try {
			Kind kind = "believes".equals(parts[1]) ? Kind.BELIEVES : "ends".equals(parts[1]) ? Kind.ENDS : null;
			if (parts.length != 5 || kind == null) {
				throw new IllegalArgumentException("not a journal line");
			}
			add(Long.parseLong(parts[4]), kind, process, parts[2], Long.parseLong(parts[3]));
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
