package dev.membership.sample.journal;

import java.io.PrintStream;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

import dev.membership.spi.LeadershipObserver;

/**
 * What this node believes, one line on standard output at each change, stamped with the
 * exact monotonic instant the engine gives ({@code JOURNAL believes <unit> <epoch>
 * <nanos>}, {@code JOURNAL ends ...}; a unit is a group, or {@code group#partition}): for
 * the nemesis of {@code membership-nemesis}, whose harness reads the lines of every node
 * on the host's monotonic clock (a node's own, when its wall clock alone is faked). Off
 * unless {@code sample.journal.enabled=true}.
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

	private void line(String what, String unit, long epoch, long atNanos) {
		// called on the engine's own threads: one short write, never blocking for long
		synchronized (this.out) {
			this.out.println("JOURNAL " + what + " " + unit + " " + epoch + " " + atNanos);
			this.out.flush();
		}
	}

}
