package dev.membership.engine.term;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.RunInfo;
import dev.membership.spi.RunObserver;
import dev.membership.spi.RunOutcome;

/**
 * What the engine tracks of one run beyond its registration with the term: what it is,
 * when it began, its limit, and the ends its observers asked for. Made by {@link Runs};
 * ended by its {@link TermExecution}.
 */
public final class Run {

	private static final Logger log = LoggerFactory.getLogger(Run.class);

	public final RunInfo info;

	/** When the run began, by the node's monotonic clock. */
	public final long startedNanos;

	/** How long it may run before it counts as hung; 0 for no limit. */
	public final long maxRunNanos;

	/** The thread that began it: whose stack a hung run's warning shows. */
	public final Thread thread;

	private final RunObserver.Ended[] ends;

	/** Set once on the loop when the run has outlived its limit. */
	volatile boolean hung;

	Run(RunInfo info, long startedNanos, long maxRunNanos, Thread thread, RunObserver.Ended[] ends) {
		this.info = info;
		this.startedNanos = startedNanos;
		this.maxRunNanos = maxRunNanos;
		this.thread = thread;
		this.ends = ends;
	}

	@Nullable Instant startedAt() {
		return this.info.startedAt();
	}

	/** Tells every observer, each isolated from the others and from the run. */
	void ended(RunOutcome outcome, @Nullable Throwable error) {
		for (RunObserver.Ended end : this.ends) {
			try {
				end.ended(outcome, error);
			}
			catch (Throwable ex) {
				log.warn("A run observer failed at the end of {} (ignored)", this.info.job(), ex);
			}
		}
	}

	static RunOutcome outcome(@Nullable Throwable failure, boolean told) {
		if (failure instanceof InterruptedException) {
			return RunOutcome.INTERRUPTED;
		}
		if (failure != null) {
			return RunOutcome.ERROR;
		}
		return told ? RunOutcome.INTERRUPTED : RunOutcome.SUCCESS;
	}

}
