package dev.membership.sample.housekeeping;

import java.time.Instant;

/**
 * One run of the leader-only purge, recorded when it starts and again when it ends,
 * whatever the node believed by then; both times are stamped by the database's clock
 * ({@code $currentDate}), so runs of different nodes compare.
 *
 * @param endedAt null while the run goes on
 * @param accepted whether the run's fenced write was accepted: false means a newer leader
 * had written first, so this run's result was discarded; null while it runs, or when it
 * failed ({@code error})
 * @param error why the run failed (the database was unreachable, say), or null
 */
public record HousekeepingRun(String id, String nodeId, long epoch, Instant startedAt, Instant endedAt, long purged,
		Boolean accepted, String error) {
}
