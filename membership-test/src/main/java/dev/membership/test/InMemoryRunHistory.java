package dev.membership.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;
import dev.membership.spi.RunRings;

/**
 * The run history in memory, as the MongoDB one keeps it: at most {@code maxRuns} runs
 * per job, partition and node process (the oldest replaced; what earlier processes left
 * cut to the newest {@code maxRuns} as a process writes a job and partition for the first
 * time), none older than {@code retention} by {@code clock}. Passes
 * {@link RunHistoryContract}; what {@code @AutoConfigureMembershipTest} gives a node, so
 * that a test can read the runs it made.
 */
public class InMemoryRunHistory implements RunHistoryStore {

	private final Clock clock;

	private final Duration retention;

	private final int maxRuns;

	private final RunRings rings = new RunRings();

	/** By slot: a job, partition and process's ring. */
	private final Map<String, RunRecord> runs = new LinkedHashMap<>();

	public InMemoryRunHistory() {
		this(Clock.systemUTC(), Duration.ofDays(7), 100);
	}

	public InMemoryRunHistory(Clock clock, Duration retention, int maxRuns) {
		this.clock = Objects.requireNonNull(clock);
		this.retention = Objects.requireNonNull(retention);
		if (maxRuns < 1) {
			throw new IllegalArgumentException("maxRuns must be at least 1, not " + maxRuns);
		}
		this.maxRuns = maxRuns;
	}

	@Override
	public void initialize() {
	}

	@Override
	public synchronized void save(List<RunRecord> records) {
		List<RunRecord> opening = this.rings.opening(records);
		for (RunRecord ring : opening) {
			this.runs.values()
				.stream()
				.filter((run) -> run.job().equals(ring.job()) && Objects.equals(run.partition(), ring.partition()))
				.sorted(Comparator.comparing(RunRecord::startedAt).reversed())
				.skip(this.maxRuns)
				.limit(RunRings.TRIM_AT_MOST)
				.toList()
				.forEach((old) -> this.runs.values().remove(old));
		}
		this.rings.trimmed(opening);
		for (RunRecord record : records) {
			String slot = record.process() + ":" + record.job() + ":" + record.partition() + ":"
					+ Math.floorMod(record.sequence() - 1, (long) this.maxRuns);
			RunRecord kept = this.runs.get(slot);
			if (record.first()) {
				this.runs.put(slot, record);
			}
			else if (kept != null && kept.id().equals(record.id())) {
				this.runs.put(slot,
						new RunRecord(kept.id(), kept.process(), kept.sequence(), kept.job(), kept.group(),
								kept.partition(), kept.nodeId(), kept.epoch(), kept.startedAt(), record.endedAt(),
								record.outcome(), record.error(), kept.requestedBy(), kept.requestedFrom(),
								kept.fireAt(), kept.first()));
			}
		}
	}

	@Override
	public synchronized List<RunRecord> find(RunQuery query) {
		Instant expired = this.clock.instant().minus(this.retention);
		this.runs.values().removeIf((run) -> run.startedAt().isBefore(expired));
		List<RunRecord> found = new ArrayList<>();
		for (RunRecord run : this.runs.values()) {
			if ((query.job() == null || query.job().equals(run.job()))
					&& (query.group() == null || query.group().equals(run.group()))
					&& (query.partition() == null || query.partition().equals(run.partition()))
					&& (query.nodeId() == null || query.nodeId().equals(run.nodeId()))
					&& (query.since() == null || !run.startedAt().isBefore(query.since()))) {
				found.add(new RunRecord(run.id(), run.process(), run.sequence(), run.job(), run.group(),
						run.partition(), run.nodeId(), run.epoch(), run.startedAt(), run.endedAt(), run.outcome(),
						run.error(), run.requestedBy(), run.requestedFrom(), run.fireAt(), false));
			}
		}
		found.sort(Comparator.comparing(RunRecord::startedAt).reversed());
		return found.subList(0, Math.min(found.size(), query.limit()));
	}

}
