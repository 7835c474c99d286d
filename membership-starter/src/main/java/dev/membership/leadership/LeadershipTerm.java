package dev.membership.leadership;

import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One uninterrupted period in which this node leads a group (or owns a partition) under
 * one epoch: what leader code reads. Leader code gets it from
 * {@link LeaderContext#currentTerm()} ({@link ReactiveLeaderContext#currentTerm()} in a
 * reactive pipeline), uses {@link #epoch()} to fence its writes (reject anything stamped
 * with a lower epoch), {@link #remaining()} to avoid starting work it cannot finish while
 * still leader, and {@link #isEnding()} to wrap up long work early.
 * <p>
 * The object is live: it stays valid for as long as this node holds the epoch and its
 * (renewed) deadline has not passed, and turns invalid at once when the belief ends
 * (revocation, missed deadline, shutdown), so leader code may keep it and ask again. All
 * in memory: no database call. Only the starter's engine makes terms: nothing else can
 * subclass this type (a subclass from any other code fails when constructed), and nothing
 * public starts, extends or ends one.
 */
public abstract class LeadershipTerm {

	/**
	 * For the engine's term only: a subclass loaded from anywhere but the starter's own
	 * jar (or classes folder) fails here, so that no code can make up a term and pass it
	 * for one.
	 */
	protected LeadershipTerm() {
		if (!fromTheStarter(getClass())) {
			throw new UnsupportedOperationException("Only membership-starter makes leadership terms; leader code gets "
					+ "its term from LeaderContext.currentTerm(), and tests from dev.membership.test.SimulatedCluster");
		}
	}

	private static boolean fromTheStarter(Class<?> type) {
		ProtectionDomain ours = LeadershipTerm.class.getProtectionDomain();
		ProtectionDomain theirs = type.getProtectionDomain();
		if (ours == theirs) {
			return true;
		}
		if (type.getClassLoader() != LeadershipTerm.class.getClassLoader()) {
			return false;
		}
		// compared as text: URL.equals may resolve hosts
		return Objects.equals(location(ours), location(theirs));
	}

	private static String location(ProtectionDomain domain) {
		CodeSource source = domain.getCodeSource();
		URL location = (source != null) ? source.getLocation() : null;
		return (location != null) ? location.toExternalForm() : null;
	}

	public abstract String group();

	/**
	 * The partition this term owns, for a partitioned group's partition; empty for a
	 * group's leadership.
	 */
	public OptionalInt partition() {
		return OptionalInt.empty();
	}

	/**
	 * The fencing token: strictly greater than the epoch of any earlier term of the
	 * group, on any node.
	 */
	public abstract long epoch();

	/**
	 * How long this node will still believe it leads if no renewal succeeds from now on;
	 * zero once ended.
	 */
	public abstract Duration remaining();

	/**
	 * Whether this node still leads under this term: not ended, and its renewed deadline
	 * has not passed. Once false, false for good.
	 */
	public abstract boolean isValid();

	/**
	 * Whether this term is ending or has ended: a hand-over has begun (graceful stop,
	 * resign, a partition moved) or the term is over. No new work starts under it;
	 * running work should wrap up. Once true, true for good.
	 */
	public abstract boolean isEnding();

	/**
	 * One piece of work registered with a term, so that a hand-over waits for it: what
	 * the starter's guards hold while guarded work runs. Obtained from
	 * {@code dev.membership.spi.WorkRegistry}, for guards of an integration's own.
	 */
	public interface Execution extends AutoCloseable {

		String name();

		LeadershipTerm term();

		/**
		 * Says that the work failed with {@code error}, before {@link #close()}: the
		 * run's outcome in its observation and the run history. Work closed without it
		 * succeeded (or was interrupted, when its term told it to stop).
		 */
		default void failed(Throwable error) {
		}

		/** Ends the work (once; later calls do nothing). */
		@Override
		void close();

	}

	/**
	 * Makes this term the {@link LeaderContext} of the calling thread, until the returned
	 * action runs (on the same thread): what registered work does while it runs. For the
	 * engine's term only.
	 */
	protected final Runnable enterOnThisThread() {
		return LeaderContext.enter(this);
	}

	/**
	 * As {@link #enterOnThisThread()}, for the run of the scheduled fire at
	 * {@code fireAt}.
	 */
	protected final Runnable enterOnThisThread(Instant fireAt) {
		return LeaderContext.enter(this, fireAt);
	}

}
