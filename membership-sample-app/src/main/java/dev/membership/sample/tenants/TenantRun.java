package dev.membership.sample.tenants;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One run of one partition's roll-up, recorded when it starts and again when it ends;
 * both times are stamped by the database's clock ({@code $currentDate}), so runs of
 * different nodes compare.
 *
 * @param endedAt null while the run goes on
 * @param accepted whether the run's fenced checkpoint write was accepted (false: a newer
 * owner of the partition had written first); null while it runs, or when it failed
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record TenantRun(@JsonIgnore String id, String nodeId, int partition, long epoch, Instant startedAt,
		Instant endedAt, Boolean accepted) {
}
