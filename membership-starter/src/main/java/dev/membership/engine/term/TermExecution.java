package dev.membership.engine.term;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.spi.WorkRegistry;

/**
 * One piece of leader-only work registered with a {@link Term}: on one thread (which has
 * the term as its {@link LeaderContext} while the work runs, and may be interrupted at
 * the end), or on none (told of the end through a callback, closable from any thread).
 */
public final class TermExecution implements LeadershipTerm.Execution {

	private static final Logger log = LoggerFactory.getLogger(LeadershipTerm.class);

	private final Term term;

	private final String name;

	private final AtomicInteger byName;

	/** The thread to interrupt when the term ends, or null. */
	private final @Nullable Thread thread;

	/**
	 * What to run when the term ends, for work on no particular thread; null for work on
	 * one thread.
	 */
	private final @Nullable Runnable onEnd;

	/**
	 * Leaves the term's context on this work's thread; null for work on no particular
	 * thread.
	 */
	private @Nullable Runnable leave;

	private boolean closed;

	private boolean interrupted;

	/** What watches this run (observers, a time limit), or null when nothing does. */
	private @Nullable Run run;

	/** What the work said it failed with, or null. */
	private @Nullable Throwable failure;

	/**
	 * What the engine does as the work ends, before it stops counting for the drain (a
	 * fire's end), or null.
	 */
	private @Nullable Runnable whenClosed;

	/**
	 * The instant of the scheduled fire this work runs, or null (set once, as it is
	 * bound).
	 */
	private @Nullable Instant fireAt;

	TermExecution(Term term, String name, AtomicInteger byName, @Nullable Thread thread, @Nullable Runnable onEnd) {
		this.term = term;
		this.name = name;
		this.byName = byName;
		this.thread = thread;
		this.onEnd = onEnd;
	}

	/**
	 * Runs {@code task} as the work {@code execution} registered, if it did (not null);
	 * returns whether it ran.
	 */
	public static boolean run(LeadershipTerm.@Nullable Execution execution, Runnable task) {
		if (execution == null) {
			return false;
		}
		try {
			task.run();
		}
		catch (RuntimeException | Error ex) {
			execution.failed(ex); // before the close, which ends the run
			throw ex;
		}
		finally {
			execution.close();
		}
		return true;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public LeadershipTerm term() {
		return this.term;
	}

	AtomicInteger byName() {
		return this.byName;
	}

	/** Whether the end of the term is told to this work (an interrupt, a callback). */
	boolean isTold() {
		return this.thread != null || this.onEnd != null;
	}

	/** Work on this thread has the term as its context until it is closed. */
	TermExecution bind() {
		return bind(null);
	}

	/**
	 * As {@link #bind()}, the run of the scheduled fire at {@code fireAt} (null: none).
	 */
	TermExecution bind(@Nullable Instant fireAt) {
		this.fireAt = fireAt;
		if (this.onEnd == null) {
			this.leave = this.term.enterHere(fireAt);
		}
		return this;
	}

	/**
	 * Calls {@code call} on this thread with this detached work's term as the thread's
	 * context meanwhile.
	 */
	public <T> T within(WorkRegistry.Call<T> call) throws Throwable {
		if (this.onEnd == null || this.closed) {
			throw new IllegalArgumentException("Only open detached work runs a call within it: " + this.name);
		}
		Runnable leave = this.term.enterHere(this.fireAt);
		try {
			return call.call();
		}
		finally {
			leave.run();
		}
	}

	/**
	 * Runs {@code action} as the work ends, before the drain stops waiting for it (set
	 * once, by its own thread).
	 */
	public void whenClosed(Runnable action) {
		this.whenClosed = action;
	}

	/**
	 * Watched as {@code run} from now on (set once, by the thread that registered the
	 * work).
	 */
	void watchedAs(Run run) {
		this.run = run;
	}

	public @Nullable Run run() {
		return this.run;
	}

	@Override
	public void failed(Throwable error) {
		if (this.failure == null) {
			this.failure = error;
		}
	}

	void tell() {
		Runnable callback;
		synchronized (this) {
			if (this.closed || this.interrupted) {
				return;
			}
			this.interrupted = true;
			if (this.thread != null) {
				this.thread.interrupt();
				return;
			}
			callback = this.onEnd;
		}
		// outside the lock: a cancel may close this work at once, on this thread or
		// another
		try {
			if (callback != null) {
				callback.run();
			}
		}
		catch (Throwable ex) {
			// the caller ends or hands over the term for the node: the work's callback
			// must not stop that
			log.warn("Telling leader-only work '{}' that its term ended failed", this.name, ex);
		}
	}

	/**
	 * Ends the work; clears an interrupt the term sent, since the thread may go back to a
	 * pool.
	 */
	@Override
	public void close() {
		boolean told;
		if (!isTold()) {
			// only its own thread touches work that is not told of the end: no lock on
			// the hot path
			if (this.closed) {
				return;
			}
			this.closed = true;
			told = false;
		}
		else {
			synchronized (this) {
				if (this.closed) {
					return;
				}
				this.closed = true;
				told = this.interrupted;
				if (this.interrupted && this.thread == Thread.currentThread()) {
					Thread.interrupted();
				}
			}
		}
		Run watched = this.run;
		if (watched != null) {
			// before the context is left: an observer's scope (a span) closes inside it,
			// on the run's thread
			this.term.runs().ended(watched, Run.outcome(this.failure, told), this.failure);
		}
		if (this.leave != null) {
			this.leave.run();
		}
		Runnable closing = this.whenClosed;
		if (closing != null) {
			try {
				closing.run();
			}
			catch (RuntimeException ex) {
				log.warn("Recording the end of leader-only work '{}' failed", this.name, ex);
			}
		}
		this.term.finished(this);
	}

}
