package dev.membership.sample.housekeeping;

import java.time.Instant;

/** One run of the leader-only purge; times are database-time estimates of the node that ran it. */
public record HousekeepingRun(String nodeId, long epoch, Instant startedAt, Instant endedAt, long purged) {
}
