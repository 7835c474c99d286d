package dev.membership.engine.loop;

import java.util.ArrayDeque;
import java.util.function.Consumer;

import org.slf4j.LoggerFactory;

/**
 * One unit of the loop's work: steps that run one after another, each of which may wait
 * for a store reply before the next; the first failure ends the job. The loop runs one
 * job at a time, so a job sees the store the way a thread making blocking calls would,
 * whether its calls are answered at once (threads) or later (simulation).
 */
public final class LoopJob {

	/**
	 * One step: must end by calling exactly one of {@link #next()} or
	 * {@link #fail(RuntimeException)}, now or later.
	 */
	@FunctionalInterface
	public interface Step {

		void run(LoopJob job);

	}

	private final String name;

	private final ArrayDeque<Step> steps = new ArrayDeque<>();

	private final Consumer<RuntimeException> onFailure;

	private Runnable onEnd = () -> {
	};

	private boolean ended;

	/** Whether {@link #next()} is running; a step that goes on at once only says so. */
	private boolean looping;

	private boolean again;

	public LoopJob(String name, Consumer<RuntimeException> onFailure) {
		this.name = name;
		this.onFailure = onFailure;
	}

	/** A job of one step that needs no store call. */
	public static LoopJob of(String name, Runnable action) {
		LoopJob job = new LoopJob(name,
				(ex) -> LoggerFactory.getLogger(LoopJob.class).error("Membership {} failed", name, ex));
		return job.then((j) -> {
			action.run();
			j.next();
		});
	}

	/** Adds a step at the end. */
	public LoopJob then(Step step) {
		this.steps.addLast(step);
		return this;
	}

	/** Adds a step to run right after the current one. */
	public LoopJob now(Step step) {
		this.steps.addFirst(step);
		return this;
	}

	/** Adds a step to run when everything else has run, whether the job failed or not. */
	public LoopJob onEnd(Runnable action) {
		Runnable before = this.onEnd;
		this.onEnd = () -> {
			try {
				before.run();
			}
			finally {
				action.run();
			}
		};
		return this;
	}

	void start() {
		next();
	}

	/**
	 * The current step is done: runs the next one, or ends the job. A step that goes on
	 * at once (its store call was answered on the same thread) loops here instead of
	 * nesting, so a long job never grows the stack.
	 */
	public void next() {
		if (this.looping) {
			this.again = true;
			return;
		}
		this.looping = true;
		try {
			do {
				this.again = false;
				Step step = this.steps.pollFirst();
				if (step == null) {
					end();
					return;
				}
				try {
					step.run(this);
				}
				catch (RuntimeException ex) {
					fail(ex);
					return;
				}
				catch (Error err) {
					failAndRethrow(err);
				}
			}
			while (this.again);
		}
		finally {
			this.looping = false;
		}
	}

	/**
	 * Ends the job whatever happens, or the loop would wait for it forever; then lets the
	 * error go on.
	 */
	void failAndRethrow(Error err) {
		try {
			fail(new IllegalStateException("Membership " + this.name + " failed", err));
		}
		catch (RuntimeException | Error suppressed) {
			err.addSuppressed(suppressed);
		}
		throw err;
	}

	/** Ends the job successfully without running the remaining steps. */
	public void finish() {
		this.steps.clear();
		end();
	}

	/** Ends the job with {@code failure}; the remaining steps do not run. */
	void fail(RuntimeException failure) {
		this.steps.clear();
		try {
			this.onFailure.accept(failure);
		}
		finally {
			end();
		}
	}

	private void end() {
		if (!this.ended) {
			this.ended = true;
			this.onEnd.run();
		}
	}

}
