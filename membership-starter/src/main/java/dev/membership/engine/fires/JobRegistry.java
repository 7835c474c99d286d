package dev.membership.engine.fires;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.term.Unit;
import dev.membership.leadership.ScheduledJobInfo;
import dev.membership.spi.ScheduledJob;

/**
 * The scheduled jobs of a node, for {@link ScheduledFires}: a plain group's jobs, fired
 * by its leader, and a partitioned group's, fired by each partition's owner for that
 * partition (one {@link JobState} per partition the node owned, made as its term begins).
 * By lease name, then job; registrations from any thread, the rest on the loop.
 */
final class JobRegistry {

	private final Map<String, Map<String, JobState>> byLease = new ConcurrentHashMap<>();

	private final Map<String, Map<String, ScheduledJob>> partitioned = new ConcurrentHashMap<>();

	/** A plain group's job; throws when one of that name is scheduled already. */
	JobState addPlain(ScheduledJob job) {
		JobState fires = new JobState(job, Unit.group(job.group()));
		if (this.byLease.computeIfAbsent(job.group(), (g) -> new ConcurrentHashMap<>())
			.putIfAbsent(job.job(), fires) != null) {
			throw scheduledAlready(job);
		}
		return fires;
	}

	/** A partitioned group's job; throws when one of that name is scheduled already. */
	void addPartitioned(ScheduledJob job) {
		if (this.partitioned.computeIfAbsent(job.group(), (g) -> new ConcurrentHashMap<>())
			.putIfAbsent(job.job(), job) != null) {
			throw scheduledAlready(job);
		}
	}

	private static IllegalArgumentException scheduledAlready(ScheduledJob job) {
		return new IllegalArgumentException(
				"Job '" + job.job() + "' of group '" + job.group() + "' is scheduled " + "already");
	}

	/**
	 * The jobs of the plain group {@code unit}, or of its partitioned group for each of
	 * them: on the loop.
	 */
	List<JobState> forTerm(Unit unit) {
		if (!unit.isPartition()) {
			return List.copyOf(this.byLease.getOrDefault(unit.leaseName(), Map.of()).values());
		}
		List<JobState> fires = new ArrayList<>();
		this.partitioned.getOrDefault(unit.group(), Map.of()).values().forEach((job) -> fires.add(of(unit, job)));
		return fires;
	}

	/** The partition {@code unit}'s fires of {@code job}, made the first time. */
	JobState of(Unit unit, ScheduledJob job) {
		return this.byLease.computeIfAbsent(unit.leaseName(), (l) -> new ConcurrentHashMap<>())
			.computeIfAbsent(job.job(), (j) -> new JobState(job, unit));
	}

	@Nullable JobState find(String lease, String job) {
		return this.byLease.getOrDefault(lease, Map.of()).get(job);
	}

	/** Ends a job: its fires on every lease, and its registration. */
	void remove(ScheduledJob job) {
		Map<String, ScheduledJob> ofGroup = this.partitioned.get(job.group());
		if (ofGroup != null) {
			ofGroup.remove(job.job(), job);
		}
		this.byLease.values().forEach((byJob) -> byJob.values().removeIf((fires) -> {
			boolean mine = fires.job == job;
			if (mine) {
				fires.closed = true;
				fires.term = null;
			}
			return mine;
		}));
	}

	/**
	 * Every job as this node knows it, a partitioned group's once per partition it fired;
	 * from any thread.
	 */
	List<ScheduledJobInfo> infos() {
		List<ScheduledJobInfo> infos = new ArrayList<>();
		this.byLease.values().forEach((byJob) -> byJob.values().forEach((fires) -> infos.add(fires.info())));
		infos.sort(Comparator.comparing(ScheduledJobInfo::job)
			.thenComparing((info) -> (info.partition() != null) ? info.partition() : -1));
		return infos;
	}

}
