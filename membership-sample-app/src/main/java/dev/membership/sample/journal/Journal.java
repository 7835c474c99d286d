package dev.membership.sample.journal;

import java.io.PrintStream;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

import dev.membership.leadership.LeaseReleasedEvent;
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
 */
@Component
@ConditionalOnBooleanProperty("sample.journal.enabled")
public class Journal implements LeadershipObserver {

	private final PrintStream out = System.out;

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
