package dev.membership.engine;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunInfo;
import dev.membership.spi.RunObserver;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;

/**
 * This node's part of the cluster's run history: every run's start and end, kept in a bounded buffer and written in
 * one store call at the end of a tick in which any run began or ended (none otherwise), and once more as the node
 * leaves. While the store cannot be reached the buffer keeps the newest {@code capacity} runs; older ones are dropped
 * and counted ({@link ElectionMetrics#runsDropped}). Nothing here is on a safety path.
 */
final class RunHistory implements RunObserver {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private static final Ended NOTHING = (outcome, error) -> {
	};

	private final @Nullable RunHistoryStore store;

	private final ServerClock clock;

	private final String process;

	private final int capacity;

	private final ElectionMetrics metrics;

	/** The runs' numbers, per job and partition, in this process. */
	private final Map<String, AtomicLong> sequences = new ConcurrentHashMap<>();

	/** The operators' actions recorded, for their ids. */
	private final AtomicLong actions = new AtomicLong();

	/** What waits to be written, by run id, oldest first; guarded by this. */
	private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();

	/** Confined to the loop. */
	private boolean initialized;

	RunHistory(@Nullable RunHistoryStore store, ServerClock clock, String incarnation, int capacity,
			ElectionMetrics metrics) {
		this.store = store;
		this.clock = clock;
		this.process = Runs.process(incarnation);
		this.capacity = capacity;
		this.metrics = metrics;
	}

	boolean keeps() {
		return this.store != null;
	}

	@Override
	public Ended began(RunInfo run) {
		Instant startedAt = run.startedAt();
		if (startedAt == null) {
			return NOTHING; // no term begins before the first sample of the database's clock
		}
		String key = run.job() + ":" + run.partition();
		Pending p = new Pending(run, startedAt, this.sequences.computeIfAbsent(key, (k) -> new AtomicLong())
			.incrementAndGet());
		offer(p);
		return (outcome, error) -> {
			synchronized (this) {
				p.endedAt = this.clock.estimateIfSynchronized();
				p.outcome = outcome;
				p.error = firstLine(error);
			}
			offer(p);
		};
	}

	/**
	 * An operator's action carried out on this node, as a run that began and ended now ({@code operator#drain},
	 * {@code operator#move(n2)}, ...): the history shows who steered what, beside the runs it moved.
	 */
	void action(String action, String nodeId, String group, @Nullable Integer partition, long epoch) {
		Instant now = this.clock.estimateIfSynchronized();
		if (this.store == null || now == null) {
			return;
		}
		String job = "operator#" + action;
		RunInfo info = new RunInfo(this.process + "-op" + this.actions.incrementAndGet(), job, group, partition, 0,
				epoch, nodeId, now, false);
		Pending p = new Pending(info, now,
				this.sequences.computeIfAbsent(job + ":" + partition, (k) -> new AtomicLong()).incrementAndGet());
		synchronized (this) {
			p.endedAt = now;
			p.outcome = RunOutcome.SUCCESS;
		}
		offer(p);
	}

	private synchronized void offer(Pending p) {
		if (this.pending.containsKey(p.info.id())) {
			return;
		}
		if (this.pending.size() >= this.capacity) {
			Iterator<Pending> oldest = this.pending.values().iterator();
			oldest.next();
			oldest.remove();
			this.metrics.runsDropped(1);
		}
		this.pending.put(p.info.id(), p);
	}

	/** Writes what waits, in one call (none when nothing does); a failure keeps it for the next time. On the loop. */
	void flush(NodeLoop loop, LoopJob job) {
		RunHistoryStore history = this.store;
		List<Pending> batch;
		List<RunRecord> records = new ArrayList<>();
		synchronized (this) {
			if (history == null || this.pending.isEmpty()) {
				job.next();
				return;
			}
			batch = new ArrayList<>(this.pending.values());
			this.pending.clear();
			batch.forEach((p) -> records.add(p.record(this.process)));
		}
		loop.call(job, () -> {
			if (!this.initialized) {
				initialize(history);
			}
			history.save(records);
			return null;
		}, (nothing, sent, received) -> written(batch, records), (ex) -> {
			log.debug("Could not write {} run(s) to the history (kept for the next tick): {}", records.size(),
					ex.getMessage());
			batch.forEach(this::offer);
			return true; // the history never fails a tick
		});
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

	private synchronized void written(List<Pending> batch, List<RunRecord> records) {
		for (int i = 0; i < batch.size(); i++) {
			if (records.get(i).first()) {
				batch.get(i).startWritten = true;
			}
		}
	}

	private static @Nullable String firstLine(@Nullable Throwable error) {
		if (error == null) {
			return null;
		}
		String message = String.valueOf(error.getMessage());
		int end = message.indexOf('\n');
		String line = (end >= 0) ? message.substring(0, end) : message;
		return error.getClass().getSimpleName() + ": " + ((line.length() > 300) ? line.substring(0, 300) : line);
	}

	/** A run as it waits to be written; its fields guarded by the history. */
	private static final class Pending {

		final RunInfo info;

		final Instant startedAt;

		final long sequence;

		@Nullable Instant endedAt;

		@Nullable RunOutcome outcome;

		@Nullable String error;

		boolean startWritten;

		Pending(RunInfo info, Instant startedAt, long sequence) {
			this.info = info;
			this.startedAt = startedAt;
			this.sequence = sequence;
		}

		RunRecord record(String process) {
			return new RunRecord(this.info.id(), process, this.sequence, this.info.job(), this.info.group(),
					this.info.partition(), this.info.nodeId(), this.info.epoch(), this.startedAt,
					(this.outcome != null) ? this.endedAt : null, this.outcome, this.error, !this.startWritten);
		}

	}

}
