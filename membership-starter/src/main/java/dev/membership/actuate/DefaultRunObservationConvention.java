package dev.membership.actuate;

import io.micrometer.common.KeyValues;

import dev.membership.spi.RunInfo;
import dev.membership.spi.RunOutcome;

/**
 * {@code membership.run}: one observation per run, so a timer {@code membership.run} (and
 * a span where tracing is on), named after the job. Low-cardinality keys: {@code group},
 * {@code job} ({@code bean#method}), {@code outcome} ({@code success}, {@code error},
 * {@code interrupted}), and {@code partition} (the number for a partitioned group of at
 * most {@value #MAX_TAGGED_PARTITIONS} partitions, {@code many} for a larger one,
 * {@code none} for a plain group). High-cardinality keys: {@code node} and {@code epoch}.
 */
public class DefaultRunObservationConvention implements RunObservationConvention {

	/**
	 * Partitioned groups with more partitions than this tag their runs' partition as
	 * {@code many}.
	 */
	public static final int MAX_TAGGED_PARTITIONS = 32;

	@Override
	public String getName() {
		return "membership.run";
	}

	@Override
	public String getContextualName(RunObservationContext context) {
		return context.getRun().job();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RunObservationContext context) {
		RunInfo run = context.getRun();
		RunOutcome outcome = context.getOutcome();
		return KeyValues.of("group", run.group(), "job", run.job(), "outcome",
				(outcome != null) ? outcome.tag() : "running", "partition", partition(run));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RunObservationContext context) {
		RunInfo run = context.getRun();
		return KeyValues.of("node", run.nodeId(), "epoch", Long.toString(run.epoch()));
	}

	private static String partition(RunInfo run) {
		if (run.partition() == null) {
			return "none";
		}
		return (run.partitions() <= MAX_TAGGED_PARTITIONS) ? run.partition().toString() : "many";
	}

}
