package dev.membership.simulation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * The notes of fires that did not run, as the nodes make them (read from the events
 * {@code FireNotes} logs, whose arguments are the node, the job, the unit, the first fire
 * and the reason), and what became of them: a note reaches the history with a write its
 * process begins after it made the note, so one that is not in the history may have gone
 * with its process only if that ended before a second write of it arrived (the first may
 * have been under way as the note was made).
 */
final class NotesMade {

	private record Made(String nodeId, Instant first, Instant last, long at) {
	}

	private record Ended(String nodeId, String process, long at) {
	}

	private static final Pattern RANGE = Pattern.compile("^\\d+ fires, (\\S+) to (\\S+): ");

	/** A simulation runs on one thread: the notes made on it are its. */
	private static final ThreadLocal<NotesMade> CURRENT = new ThreadLocal<>();

	private static Appender installed;

	private final LongSupplier now;

	private final List<Made> made = new ArrayList<>();

	private final List<Ended> ended = new ArrayList<>();

	/** Each process's writes of its history that arrived, when (virtual time). */
	private final Map<String, List<Long>> writes = new HashMap<>();

	NotesMade(LongSupplier now) {
		this.now = now;
	}

	/** Collects the notes made on this thread until the returned handle closes. */
	AutoCloseable collect() {
		install();
		CURRENT.set(this);
		return CURRENT::remove;
	}

	/** A write of {@code process}'s history arrived. */
	void written(String process) {
		this.writes.computeIfAbsent(process, (p) -> new ArrayList<>()).add(this.now.getAsLong());
	}

	/**
	 * A process of {@code nodeId} ended ({@code process}: its name in the history, or
	 * null for a second process under the node's id).
	 */
	void ended(String nodeId, String process) {
		this.ended.add(new Ended(nodeId, process, this.now.getAsLong()));
	}

	/**
	 * Whether a note of {@code fire} was made and its process ended before a write that
	 * carried it.
	 */
	boolean lostWithItsProcess(Instant fire) {
		for (Made note : this.made) {
			if (fire.isBefore(note.first()) || fire.isAfter(note.last())) {
				continue;
			}
			for (Ended end : this.ended) {
				if (end.nodeId().equals(note.nodeId()) && end.at() >= note.at()
						&& (end.process() == null || this.writes.getOrDefault(end.process(), List.of())
							.stream()
							.filter((at) -> at > note.at() && at <= end.at())
							.count() < 2)) {
					return true;
				}
			}
		}
		return false;
	}

	private void made(ILoggingEvent event) {
		Object[] args = event.getArgumentArray();
		if (args == null || args.length < 5 || !(args[3] instanceof Instant first)) {
			return;
		}
		Matcher range = RANGE.matcher(String.valueOf(args[4]));
		Instant last = range.find() ? Instant.parse(range.group(2)) : first;
		this.made.add(new Made(String.valueOf(args[0]), first, last, this.now.getAsLong()));
	}

	private static synchronized void install() {
		if (installed == null) {
			Appender appender = new Appender();
			Logger logger = (Logger) LoggerFactory.getLogger("dev.membership.engine.fires.FireNotes");
			appender.setContext(logger.getLoggerContext());
			appender.start();
			logger.addAppender(appender);
			// seen even where the nodes' logs are silenced, and not printed
			logger.setLevel(Level.INFO);
			logger.setAdditive(false);
			installed = appender;
		}
	}

	private static final class Appender extends AppenderBase<ILoggingEvent> {

		@Override
		protected void append(ILoggingEvent event) {
			NotesMade notes = CURRENT.get();
			if (notes != null) {
				notes.made(event);
			}
		}

	}

}
