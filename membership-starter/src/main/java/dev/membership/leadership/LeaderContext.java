package dev.membership.leadership;

import org.jspecify.annotations.Nullable;

/**
 * The leadership term of the leader-only work running on this thread: the one way leader code gets its term, however
 * it came to run ({@code @LeaderOnly}, {@code @ForEachOwnedPartition}, {@code Membership.runIfLeader},
 * {@code Partitions.runIfOwner}) and however deep in its calls:
 * <pre>
 * long epoch = LeaderContext.currentTerm().epoch();
 * </pre>
 * In a reactive pipeline, {@link ReactiveLeaderContext#currentTerm()}. Only work registered with a term has one here:
 * nothing public sets it.
 */
public final class LeaderContext {

	/** A slot per thread, written in place: entering and leaving cost no {@code ThreadLocal.set}. */
	private static final ThreadLocal<Slot> current = ThreadLocal.withInitial(Slot::new);

	private LeaderContext() {
	}

	/**
	 * The term of the leader-only work running on this thread.
	 * @throws IllegalStateException outside leader-only work
	 */
	public static LeadershipTerm currentTerm() {
		LeadershipTerm term = current.get().term;
		if (term == null) {
			throw new IllegalStateException("No leader-only work runs on this thread: call this from a @LeaderOnly "
					+ "or @ForEachOwnedPartition method, or a runIfLeader / runIfOwner task (Membership.isLeader(group) "
					+ "tells whether this node leads)");
		}
		return term;
	}

	/** Whether leader-only work runs on this thread. */
	public static boolean isActive() {
		return current.get().term != null;
	}

	/** Makes {@code term} current on this thread until the returned action runs: {@link LeadershipTerm}'s own. */
	static Runnable enter(LeadershipTerm term) {
		Slot slot = current.get();
		LeadershipTerm previous = slot.term;
		slot.term = term;
		return (previous == null) ? slot.clear : () -> slot.term = previous;
	}

	private static final class Slot {

		private @Nullable LeadershipTerm term;

		/** What leaves the outermost work on this thread: one per thread, so that entering allocates nothing. */
		private final Runnable clear = () -> this.term = null;

	}

}
