package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * The leadership term of the leader-only work running on this thread: the one way leader code gets its term, however
 * it came to run ({@code @LeaderOnly}, {@code Membership.runIfLeader}, a custom guard's
 * {@link LeadershipTerm#tryBegin(String)}) and however deep in its calls:
 * <pre>
 * long epoch = LeaderContext.currentTerm().epoch();
 * </pre>
 * In a reactive pipeline, {@link ReactiveLeaderContext#currentTerm()}.
 */
public final class LeaderContext {

	private static final ThreadLocal<@Nullable LeadershipTerm> current = new ThreadLocal<>();

	private LeaderContext() {
	}

	/**
	 * The term of the leader-only work running on this thread.
	 * @throws IllegalStateException outside leader-only work
	 */
	public static LeadershipTerm currentTerm() {
		LeadershipTerm term = current.get();
		if (term == null) {
			throw new IllegalStateException("No leader-only work runs on this thread: call this from a @LeaderOnly "
					+ "method or a runIfLeader task (Membership.currentTerm(group) tells whether this node leads)");
		}
		return term;
	}

	/** Whether leader-only work runs on this thread. */
	public static boolean isActive() {
		return current.get() != null;
	}

	/**
	 * Makes {@code term} current on this thread until the returned scope is closed: what an execution of thread-bound
	 * work does ({@link LeadershipTerm#tryBegin(String)}), for engines of other runtimes.
	 */
	public static Scope enter(LeadershipTerm term) {
		LeadershipTerm previous = current.get();
		current.set(term);
		// set, not remove: a pooled thread keeps its entry, so the next call does not rebuild it
		return () -> current.set(previous);
	}

	@FunctionalInterface
	public interface Scope extends AutoCloseable {

		@Override
		void close();

	}

}
