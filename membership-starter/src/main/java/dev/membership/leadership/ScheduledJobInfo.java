package dev.membership.leadership;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A scheduled job whose fires are the cluster's, as this node knows it: on the leader of
 * its group (or the owner of a partition, for a job of a partitioned group), its last
 * fire and what came of it, and its next fire; elsewhere, what this node saw while it
 * last led the group (or owned the partition).
 *
 * @param group the group whose leader fires it, or the partitioned group each of whose
 * partitions' owner fires it
 * @param partition the partition, for a job of a partitioned group (one each); null for a
 * plain group's
 * @param job the job ({@code bean#method})
 * @param lastFire the instant of its last fire this node began or recorded, or null
 * @param lastOutcome what came of it: {@code running}, {@code ended}, {@code missed},
 * {@code skipped}; null with no last fire
 * @param nextFire the instant of its next fire, while this node leads the group (owns the
 * partition); else null
 */
public record ScheduledJobInfo(String group, @Nullable Integer partition, String job, @Nullable Instant lastFire,
		@Nullable String lastOutcome, @Nullable Instant nextFire) {
}
