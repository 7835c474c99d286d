package dev.membership.actuate;

import org.jspecify.annotations.Nullable;

import io.micrometer.observation.Observation;

import dev.membership.spi.RunInfo;
import dev.membership.spi.RunOutcome;

/** What a run's observation carries: the run, and once it ended, how. */
public class RunObservationContext extends Observation.Context {

	private final RunInfo run;

	private @Nullable RunOutcome outcome;

	public RunObservationContext(RunInfo run) {
		this.run = run;
	}

	public RunInfo getRun() {
		return this.run;
	}

	/** How the run ended; null while it runs. */
	public @Nullable RunOutcome getOutcome() {
		return this.outcome;
	}

	public void setOutcome(RunOutcome outcome) {
		this.outcome = outcome;
	}

}
