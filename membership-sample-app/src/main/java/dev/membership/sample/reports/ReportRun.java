package dev.membership.sample.reports;

import java.time.Instant;

/**
 * One run of the report job: the fire it ran for, who ran it under which epoch, when it
 * started and ended (stamped by the database's clock).
 *
 * @param endedAt null while the run goes on, or when its node died in it
 */
public record ReportRun(String id, String nodeId, long epoch, Instant fireAt, Instant startedAt, Instant endedAt) {
}
