package dev.membership.leadership;

import java.util.Optional;

/**
 * The leadership term of the leader-only code running on this thread ({@code @LeaderOnly} methods and
 * {@code Membership.runIfLeader}), for code that cannot take the term as a parameter:
 * <pre>
 * long epoch = LeaderContext.currentTerm().orElseThrow().epoch();
 * </pre>
 */
public final class LeaderContext {

	private static final ThreadLocal<LeadershipTerm> current = new ThreadLocal<>();

	private LeaderContext() {
	}

	public static Optional<LeadershipTerm> currentTerm() {
		return Optional.ofNullable(current.get());
	}

	/** Makes {@code term} current on this thread until the returned scope is closed. */
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
