package dev.membership.sample.journal;

import java.io.PrintStream;
import java.time.Duration;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.sample.StandInWork;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.spi.LeadershipObserver;

/**
 * What this node believes, one line on standard output at each change, stamped with the
 * exact monotonic instant the engine gives ({@code JOURNAL believes <unit> <epoch>
 * <nanos>}, {@code JOURNAL ends ...}; a unit is a group, or {@code group#partition}), and
 * each fenced write the database accepted, once it said so ({@code JOURNAL wrote
 * table/id@micros epoch nanos}, micros the time the write put in its row); each guarded
 * run's start and end ({@code runs}, {@code ran}), and each unit this node handed over
 * ({@code gave}: after its work drained): for the nemesis of {@code membership-nemesis},
 * whose harness reads the lines of every node on the host's monotonic clock (a node's
 * own, when its wall clock alone is faked). Off unless
 * {@code sample.journal.enabled=true}.
 * <p>
 * {@code sample.journal.begin-late} (a duration) makes the node a broken one, for the
 * nemesis to show that its checker catches it live: each guarded run waits that long
 * after its guard let it in, and begins (a moment after its belief ended, if it ended
 * meanwhile) without asking again, as a guard that ignores its deadline would start it.
 * Never set it elsewhere.
 */
@Component
@ConditionalOnBooleanProperty("sample.journal.enabled")
public class Journal implements LeadershipObserver {

	private final PrintStream out = System.out;

	private final Duration beginLate;

	public Journal(@Value("${sample.journal.begin-late:0s}") Duration beginLate) {
		this.beginLate = beginLate;
	}

	@Override
	public void started(String nodeId, String group, long epoch, long atNanos) {
		line("believes", group, epoch, atNanos);
	}

	@Override
	public void ended(String nodeId, String group, long epoch, long atNanos) {
		line("ends", group, epoch, atNanos);
	}

	/**
	 * The fenced write of {@code target} ({@code table/id}, a collection's on MongoDB)
	 * under {@code epoch} was accepted: the database said so. {@code at}, the time the
	 * write put in its row (whole microseconds), names that very write:
	 * {@code target@micros}.
	 */
	public void wrote(String target, java.time.Instant at, long epoch) {
		long micros = Math.addExact(Math.multiplyExact(at.getEpochSecond(), 1_000_000L), at.getNano() / 1_000);
		line("wrote", target + "@" + micros, epoch, System.nanoTime());
	}

	/** A guarded run of {@code term}'s unit began. */
	public void runs(LeadershipTerm term) {
		beginLate(term);
		line("runs", unit(term), term.epoch(), System.nanoTime());
	}

	/** ... and ended. */
	public void ran(LeadershipTerm term) {
		line("ran", unit(term), term.epoch(), System.nanoTime());
	}

	/** This node handed the group over: its work drained first. */
	@EventListener
	void gave(LeaseReleasedEvent released) {
		line("gave", released.group(), released.epoch(), System.nanoTime());
	}

	/** ... or the partition. */
	@EventListener
	void gave(PartitionReleasedEvent released) {
		line("gave", released.group() + "#" + released.partition(), released.epoch(), System.nanoTime());
	}

	/**
	 * The broken node's wait: {@code begin-late}, or until the term ended and a little
	 * more (past the checker's slack for a begin's stamp), whichever is first.
	 */
	private void beginLate(LeadershipTerm term) {
		long until = System.nanoTime() + this.beginLate.toNanos();
		while (System.nanoTime() < until && term.isValid()) {
			StandInWork.take(Duration.ofMillis(10));
		}
		if (!this.beginLate.isZero() && !term.isValid()) {
			StandInWork.take(Duration.ofMillis(200));
		}
	}

	private static String unit(LeadershipTerm term) {
		return term.partition().isPresent() ? term.group() + "#" + term.partition().getAsInt() : term.group();
	}

	private void line(String what, String unit, long epoch, long atNanos) {
		// called on the engine's own threads: one short write, never blocking for long
		synchronized (this.out) {
			this.out.println("JOURNAL " + what + " " + unit + " " + epoch + " " + atNanos);
			this.out.flush();
		}
	}

}
