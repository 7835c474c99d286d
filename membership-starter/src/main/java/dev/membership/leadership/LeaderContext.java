package dev.membership.leadership;

import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The leadership term of the leader-only work running on this thread: the one way leader
 * code gets its term, however it came to run ({@code @LeaderOnly},
 * {@code @ForEachOwnedPartition}, {@code Membership.runIfLeader},
 * {@code Partitions.runIfOwner}) and however deep in its calls: <pre>
 * long epoch = LeaderContext.currentTerm().epoch();
 * </pre> In a reactive pipeline, {@link ReactiveLeaderContext#currentTerm()}. Only work
 * registered with a term has one here: nothing public sets it.
 */
public final class LeaderContext {

	/**
	 * A slot per thread, written in place: entering and leaving cost no
	 * {@code ThreadLocal.set}.
	 */
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

	/**
	 * The instant of the scheduled fire that the leader-only work on this thread runs
	 * for: with its job, what identifies the fire cluster-wide, so a key for what must
	 * happen once per fire (the record that it ended, committed with its effects). Empty
	 * outside leader-only work, and for work that is no scheduled fire's.
	 */
	public static Optional<Instant> currentFire() {
		Slot slot = current.get();
		return (slot.term != null) ? Optional.ofNullable(slot.fireAt) : Optional.empty();
	}

	/** Whether leader-only work runs on this thread. */
	public static boolean isActive() {
		return current.get().term != null;
	}

	/**
	 * Makes {@code term} current on this thread until the returned action runs:
	 * {@link LeadershipTerm}'s own.
	 */
	static Runnable enter(LeadershipTerm term) {
		return enter(term, null);
	}

	/**
	 * As {@link #enter(LeadershipTerm)}, for the run of the scheduled fire at
	 * {@code fireAt} (null: none).
	 */
	static Runnable enter(LeadershipTerm term, @Nullable Instant fireAt) {
		Slot slot = current.get();
		LeadershipTerm previous = slot.term;
		Instant previousFire = slot.fireAt;
		slot.term = term;
		slot.fireAt = fireAt;
		if (previous == null && previousFire == null && fireAt == null) {
			return slot.clear;
		}
		return () -> {
			slot.term = previous;
			slot.fireAt = previousFire;
		};
	}

	private static final class Slot {

		private @Nullable LeadershipTerm term;

		private @Nullable Instant fireAt;

		/**
		 * What leaves the outermost work on this thread: one per thread, so that entering
		 * allocates nothing.
		 */
		private final Runnable clear = () -> {
			this.term = null;
			this.fireAt = null;
		};

	}

}
