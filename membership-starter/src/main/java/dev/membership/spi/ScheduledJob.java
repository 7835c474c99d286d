package dev.membership.spi;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * A job whose fires the leader of {@code group} (each partition's owner, for a
 * partitioned group, once per partition) runs once each, cluster-wide
 * ({@link WorkRegistry#schedule}): at the instants of {@code schedule} by the database's
 * clock, caught up and recorded as {@code policy} says after a failover, each recorded in
 * the lease so that the next term neither runs it again nor loses it.
 *
 * @param group the plain group whose leader fires it, or the partitioned group whose
 * partitions' owners fire it, each for its partition
 * @param job the job's name ({@code bean#method}): its fires' identity with their
 * instants, and its runs' in the history
 * @param schedule when it fires
 * @param policy catch-up, missed fires, overlap, and how fires are recorded
 * @param runner runs a fire: hands it to the application's threads at once (it is called
 * on the node's own), which run it through
 * {@link Fire#tryBegin(boolean, java.time.Duration)}; what it throws is logged, and the
 * fire is then taken as not begun
 */
public record ScheduledJob(String group, String job, FireSchedule schedule, FirePolicy policy, Consumer<Fire> runner) {

	public ScheduledJob {
		Objects.requireNonNull(group, "group");
		Objects.requireNonNull(job, "job");
		Objects.requireNonNull(schedule, "schedule");
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(runner, "runner");
	}

}
