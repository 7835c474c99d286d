package dev.membership.leadership;

import java.time.Duration;
import java.util.OptionalInt;

import org.jspecify.annotations.Nullable;

/**
 * One uninterrupted period in which this node leads a group under one epoch: what leader code needs. The object is
 * live: it stays valid for as long as this node holds the epoch and its (renewed) deadline has not passed, and turns
 * invalid at once when the belief ends (revocation, missed deadline, shutdown), so leader code may keep it and ask
 * again. All in memory: no database call.
 * <p>
 * Leader code gets it from {@link LeaderContext#currentTerm()} ({@link ReactiveLeaderContext#currentTerm()} in a
 * reactive pipeline), uses {@link #epoch()} to fence its writes (reject anything stamped with a lower epoch) and
 * {@link #remaining()} to avoid starting work it cannot finish while still leader. Work registers with
 * {@code tryBegin...}, so that a graceful hand-over waits for it before the lease is released ({@code @LeaderOnly} and
 * {@code Membership.runIfLeader} do that for you).
 */
public interface LeadershipTerm {

	String group();

	/** The partition this term owns, for a partitioned group's partition; empty for a group's leadership. */
	default OptionalInt partition() {
		return OptionalInt.empty();
	}

	/** The fencing token: strictly greater than the epoch of any earlier term of the group, on any node. */
	long epoch();

	/** How long this node will still believe it leads if no renewal succeeds from now on; zero once ended. */
	Duration remaining();

	/**
	 * Whether this node still leads under this term: not ended, and its renewed deadline has not passed. Once false,
	 * false for good.
	 */
	boolean isValid();

	/**
	 * Whether this node has begun handing the group over (graceful stop or resign), or the term ended: no new work
	 * starts, running work finishes (long work should wrap up).
	 */
	boolean isHandingOver();

	/**
	 * Registers leader-only work that runs on this thread, which has this term as its {@link LeaderContext} until the
	 * execution is closed. Null when the term is no longer valid or is being handed over: then the work must not run.
	 * Close it on the same thread when the work ends (try-with-resources accepts a null resource): a hand-over waits
	 * for it.
	 *
	 * @param name what runs, for the log when a hand-over cannot wait for it any longer
	 */
	@Nullable Execution tryBegin(String name);

	/** As {@link #tryBegin(String)}, and interrupts this thread when the term ends or is handed over meanwhile. */
	@Nullable Execution tryBeginInterruptible(String name);

	/**
	 * Registers leader-only work that runs on no particular thread (a reactive pipeline, say): the execution may be
	 * closed from any thread, and {@code onEnd} runs once if the term ends or is handed over while the work is open
	 * (to cancel it). It runs on one of the node's own threads: it must only hand the news on, never block; what it
	 * throws is logged and ignored.
	 */
	@Nullable Execution tryBegin(String name, Runnable onEnd);

	/** One piece of leader-only work running under a term. */
	interface Execution extends AutoCloseable {

		String name();

		LeadershipTerm term();

		/** Ends the work (once; later calls do nothing). */
		@Override
		void close();

	}

}
