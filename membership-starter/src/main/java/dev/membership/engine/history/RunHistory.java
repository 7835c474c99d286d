package dev.membership.engine.history;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.clock.ServerClock;
import dev.membership.engine.loop.ErrorText;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.term.Runs;
import dev.membership.operations.Requester;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunInfo;
import dev.membership.spi.RunObserver;
import dev.membership.spi.RunOutcome;

/**
 * This node's part of the cluster's run history: every run's start and end, kept in a
 * bounded buffer and written in one store call after a tick in which any run began or
 * ended (none otherwise), on the runtime's history lane so that the loop never waits for
 * it, and once more as the node leaves. While the store cannot be reached the buffer
 * keeps the newest {@code capacity} runs; older ones are dropped and counted
 * ({@link ElectionMetrics#runsDropped}). Nothing here is on a safety path.
 */
public final class RunHistory implements RunObserver {

	private static final Logger log = LoggerFactory.getLogger(RunHistory.class);

	private static final Ended NOTHING = (outcome, error) -> {
	};

	private final @Nullable RunHistoryStore store;

	private final ServerClock clock;

	private final String process;

	/** The runs' numbers, per job and partition, in this process. */
	private final Map<String, AtomicLong> sequences = new ConcurrentHashMap<>();

	/** The operators' actions recorded, for their ids. */
	private final AtomicLong actions = new AtomicLong();

	/** What the history keeps of an error. */
	private final ErrorText errors;

	/** What waits to be written. */
	private final PendingRuns pending;

	/** Where the writes run: the runtime's history lane, apart from the loop. */
	private final NodeRuntime.Lane writer;

	/** A write is under way on the writer: the loop starts no other. */
	private volatile boolean writing;

	private volatile boolean initialized;

	/** Whether the last write failed (warned of once until one succeeds). */
	private volatile boolean failing;

	public RunHistory(@Nullable RunHistoryStore store, NodeRuntime.Lane writer, ServerClock clock, String incarnation,
			int capacity, boolean errorMessages, ElectionMetrics metrics) {
		this.writer = writer;
		this.errors = new ErrorText(errorMessages);
		this.store = store;
		this.clock = clock;
		this.process = Runs.process(incarnation);
		this.pending = new PendingRuns(capacity, metrics::runsDropped);
	}

	public boolean keeps() {
		return this.store != null;
	}

	@Override
	public Ended began(RunInfo run) {
		Instant startedAt = run.startedAt();
		if (startedAt == null) {
			// no term begins before the first sample of the database's clock
			return NOTHING;
		}
		String key = run.job() + ":" + run.partition();
		PendingRun p = new PendingRun(run, startedAt,
				this.sequences.computeIfAbsent(key, (k) -> new AtomicLong()).incrementAndGet());
		this.pending.offer(p);
		return (outcome, error) -> this.pending.end(p, this.clock.estimateIfSynchronized(), outcome,
				this.errors.of(error));
	}

	/**
	 * An operator's action on this node, carried out or refused ({@code refusal}: why),
	 * as a run that began and ended now, with who asked ({@code operator#drain},
	 * {@code operator#move(n2)}, {@code readiness#drain}, ...): the history shows who
	 * steered what, beside the runs it moved.
	 */
	void action(String job, Requester by, String nodeId, String group, @Nullable Integer partition, long epoch,
			@Nullable RuntimeException refusal) {
		if (this.store == null) {
			return;
		}
		Instant estimate = this.clock.estimateIfSynchronized();
		// before the node's first sample of the database's clock (a drain while the
		// database is down), its own clock: an action is never left out of the history
		Instant now = (estimate != null) ? estimate : Instant.now();
		RunInfo info = new RunInfo(this.process + "-op" + this.actions.incrementAndGet(), job, group, partition, 0,
				epoch, nodeId, now, false);
		PendingRun p = new PendingRun(info, now,
				this.sequences.computeIfAbsent(job + ":" + partition, (k) -> new AtomicLong()).incrementAndGet(), by);
		this.pending.end(p, now, (refusal != null) ? RunOutcome.ERROR : RunOutcome.SUCCESS, this.errors.of(refusal));
	}

	/**
	 * Scheduled fires from {@code at} to {@code last} that did not run ({@code outcome}
	 * {@code missed} or {@code skipped}), as one run that began at the first fire's
	 * instant and ended at the last's, with the reason.
	 */
	public void fire(String job, String group, @Nullable Integer partition, String nodeId, long epoch, Instant at,
			Instant last, RunOutcome outcome, String reason) {
		if (this.store == null) {
			return;
		}
		RunInfo info = new RunInfo(this.process + "-f" + this.actions.incrementAndGet(), job, group, partition, 0,
				epoch, nodeId, at, false, at);
		PendingRun p = new PendingRun(info, at,
				this.sequences.computeIfAbsent(job + ":" + partition, (k) -> new AtomicLong()).incrementAndGet());
		this.pending.end(p, last, outcome, ErrorText.cut(reason));
	}

	/**
	 * Hands what waits to the writer, in one call (none when nothing does, or while a
	 * write is under way), and goes on at once: the loop never waits for the history. A
	 * failure keeps it for the next time. From the loop.
	 */
	public void flush(LoopJob job) {
		RunHistoryStore history = this.store;
		if (history == null || this.writing) {
			job.next();
			return;
		}
		PendingRuns.Batch batch = this.pending.take(this.process);
		if (!batch.isEmpty()) {
			this.writing = true;
			if (!this.writer.execute(() -> write(history, batch))) {
				this.writing = false;
				this.pending.putBack(batch);
			}
		}
		job.next();
	}

	/**
	 * The last write, as the node leaves: on the loop, which waits for it (its leases are
	 * let go already).
	 */
	public void flushLast(NodeLoop loop, LoopJob job) {
		RunHistoryStore history = this.store;
		PendingRuns.Batch batch = (history != null) ? this.pending.take(this.process) : null;
		if (batch == null || batch.isEmpty()) {
			job.next();
			return;
		}
		loop.call(job, () -> {
			save(history, batch);
			return null;
		}, (nothing, sent, received) -> written(batch), (ex) -> {
			failed(batch, ex);
			return true; // the history never fails a tick
		});
	}

	private void write(RunHistoryStore history, PendingRuns.Batch batch) {
		try {
			save(history, batch);
			written(batch);
		}
		catch (RuntimeException ex) {
			failed(batch, ex);
		}
		finally {
			this.writing = false;
		}
	}

	private void save(RunHistoryStore history, PendingRuns.Batch batch) {
		if (!this.initialized) {
			initialize(history);
		}
		history.save(batch.records());
	}

	private void written(PendingRuns.Batch batch) {
		this.pending.written(batch);
		if (this.failing) {
			this.failing = false;
			log.info("The run history is written again");
		}
	}

	private void failed(PendingRuns.Batch batch, RuntimeException ex) {
		if (!this.failing) {
			this.failing = true;
			log.warn("Could not write {} run(s) to the history; kept and written when it can (the oldest dropped "
					+ "past membership.history.buffer): {}", batch.runs().size(), ex.getMessage());
		}
		else {
			log.debug("Could not write {} run(s) to the history (kept for the next tick): {}", batch.runs().size(),
					ex.getMessage());
		}
		this.pending.putBack(batch);
	}

	private void initialize(RunHistoryStore history) {
		this.initialized = true;
		try {
			history.initialize();
		}
		catch (RuntimeException ex) {
			log.warn("Could not prepare the run history (indexes; its expiry by age): {}", ex.getMessage());
		}
	}

}
