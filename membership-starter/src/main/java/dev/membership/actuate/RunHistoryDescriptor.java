package dev.membership.actuate;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import dev.membership.spi.RunRecord;

/**
 * The body of {@code GET /actuator/cluster/runs}: runs of the whole cluster, newest
 * first. Field names are an API: keep them stable. Times are ISO-8601 strings in database
 * time (each node's estimate of it).
 *
 * @param runs the runs the query selected
 */
public record RunHistoryDescriptor(List<Run> runs) implements OperationResponseBody {

	static RunHistoryDescriptor of(List<RunRecord> records) {
		return new RunHistoryDescriptor(records.stream().map(Run::of).toList());
	}

	/**
	 * One run: {@code job} is {@code bean#method}; {@code partition} null for a plain
	 * group; {@code endedAt} and {@code outcome} null while it runs, or when its node
	 * died before it ended; {@code outcome} {@code success}, {@code error} or
	 * {@code interrupted}; {@code error} the exception's class and the first line of its
	 * message, credentials taken out; {@code requestedBy} and {@code requestedFrom}, for
	 * an operator's action, who asked and from where (null for a run); {@code fireAt},
	 * for a scheduled fire, its instant in its schedule (null for any other run);
	 * {@code outcome} {@code missed} or {@code skipped} for fires that did not run,
	 * {@code error} why.
	 */
	@JsonInclude(JsonInclude.Include.ALWAYS)
	public record Run(String job, String group, @Nullable Integer partition, String nodeId, long epoch,
			String startedAt, @Nullable String endedAt, @Nullable String outcome, @Nullable String error,
			@Nullable String requestedBy, @Nullable String requestedFrom, @Nullable String fireAt) {

		static Run of(RunRecord record) {
			return new Run(record.job(), record.group(), record.partition(), record.nodeId(), record.epoch(),
					record.startedAt().toString(), (record.endedAt() != null) ? record.endedAt().toString() : null,
					(record.outcome() != null) ? record.outcome().tag() : null, record.error(), record.requestedBy(),
					record.requestedFrom(), (record.fireAt() != null) ? record.fireAt().toString() : null);
		}

	}

}
