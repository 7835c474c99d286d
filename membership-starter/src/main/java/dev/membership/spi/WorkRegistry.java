package dev.membership.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.LeadershipTerm.Execution;

/**
 * Registers work with a term, so that a hand-over of the group or partition waits for it
 * (the drain) and the work has the term as its {@code LeaderContext}: what
 * {@code @LeaderOnly}, {@code @ForEachOwnedPartition}, {@code Membership.runIfLeader} and
 * {@code Partitions.runIfOwner} are made of. For integrations that guard work of their
 * own (a message listener container, a batch framework's step); applications use those
 * four. Implemented by the engine's node ({@code dev.membership.engine.MembershipNode});
 * all in memory, no database call.
 * <p>
 * An execution is null when the term is no longer valid or is ending: then the work must
 * not run. Close it when the work ends (try-with-resources accepts a null resource), on
 * the same thread for thread-bound work.
 */
public interface WorkRegistry {

	/** The live term when this node leads {@code group} (a plain group), else empty. */
	Optional<LeadershipTerm> currentTerm(String group);

	/**
	 * The terms of the partitions of the partitioned group {@code group} this node owns
	 * now (valid, not ending), by partition.
	 */
	List<LeadershipTerm> ownedTerms(String group);

	/**
	 * The live term of {@code partition} of {@code group} when this node owns it (ending
	 * or not), else empty.
	 */
	Optional<LeadershipTerm> partitionTerm(String group, int partition);

	/**
	 * Registers work named {@code name} that runs on this thread under this node's
	 * current term of {@code group}: the thread has the term as its {@code LeaderContext}
	 * until the execution is closed, and with {@code interruptible} it is interrupted
	 * when the term ends or is handed over meanwhile. Null when this node does not lead
	 * the group or is handing it over.
	 * @param name what runs (the run's job in observations and the history, and what the
	 * log names when a hand-over cannot wait for it any longer)
	 * @param maxRunTime how long it may run: past that it counts as hung, and the node
	 * hands the group over (zero: no limit)
	 */
	@Nullable Execution tryBegin(String group, String name, boolean interruptible, Duration maxRunTime);

	/** {@link #tryBegin(String, String, boolean, Duration)} with no time limit. */
	default @Nullable Execution tryBegin(String group, String name, boolean interruptible) {
		return tryBegin(group, name, interruptible, Duration.ZERO);
	}

	/**
	 * As {@link #tryBegin(String, String, boolean, Duration)}, under {@code term} (one of
	 * this node's).
	 */
	@Nullable Execution tryBegin(LeadershipTerm term, String name, boolean interruptible, Duration maxRunTime);

	/**
	 * {@link #tryBegin(LeadershipTerm, String, boolean, Duration)} with no time limit.
	 */
	default @Nullable Execution tryBegin(LeadershipTerm term, String name, boolean interruptible) {
		return tryBegin(term, name, interruptible, Duration.ZERO);
	}

	/**
	 * Registers work under {@code term} that runs on no particular thread (a reactive
	 * pipeline, say): the execution may be closed from any thread, and {@code onEnd} runs
	 * once if the term ends or is handed over while the work is open (to cancel it). It
	 * runs on one of the node's own threads: it must only hand the news on, never block;
	 * what it throws is logged and ignored. {@code maxRunTime} as for
	 * {@link #tryBegin(String, String, boolean, Duration)}.
	 */
	@Nullable Execution tryBeginDetached(LeadershipTerm term, String name, Runnable onEnd, Duration maxRunTime);

	/**
	 * {@link #tryBeginDetached(LeadershipTerm, String, Runnable, Duration)} with no time
	 * limit.
	 */
	default @Nullable Execution tryBeginDetached(LeadershipTerm term, String name, Runnable onEnd) {
		return tryBeginDetached(term, name, onEnd, Duration.ZERO);
	}

	/**
	 * Fires {@code job} on the leader of its group, once each cluster-wide: from now on,
	 * whenever this node leads the group, at each instant of its schedule by the
	 * database's clock, and as a term begins, what its policy catches up. A partitioned
	 * group's job is fired per partition, by each partition's owner, each partition's
	 * fires kept once with its lease ({@link Fire#partition()}). Close the returned
	 * handle to stop (a running fire drains as any work).
	 * @throws IllegalArgumentException when the group is not one this node competes for
	 * (or partitions), or the job is scheduled already
	 */
	AutoCloseable schedule(ScheduledJob job);

	/**
	 * Calls {@code call} on this thread as part of {@code execution}, open detached work
	 * of this node's, with its term as the thread's {@code LeaderContext} meanwhile: what
	 * a reactive guard calls the method that assembles its pipeline with.
	 * @throws IllegalArgumentException when {@code execution} is not this node's detached
	 * work
	 */
	<T> T callWithin(Execution execution, Call<T> call) throws Throwable;

	/** Work that returns a value and may throw anything. */
	@FunctionalInterface
	interface Call<T> {

		T call() throws Throwable;

	}

}
