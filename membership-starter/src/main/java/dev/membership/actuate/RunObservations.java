package dev.membership.actuate;

import org.jspecify.annotations.Nullable;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import dev.membership.spi.RunInfo;
import dev.membership.spi.RunObserver;

/**
 * Every run as a Micrometer {@link Observation}
 * ({@link DefaultRunObservationConvention}): started as the run begins, in scope on the
 * run's thread while it runs (so a {@code @Scheduled} run nests in Spring's
 * scheduled-task observation, and a span of the run is current for the code it calls),
 * stopped with its outcome.
 */
public class RunObservations implements RunObserver {

	private static final DefaultRunObservationConvention DEFAULT = new DefaultRunObservationConvention();

	private static final Ended NOTHING = (outcome, error) -> {
	};

	private final ObservationRegistry registry;

	private final @Nullable RunObservationConvention convention;

	public RunObservations(ObservationRegistry registry, @Nullable RunObservationConvention convention) {
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public Ended began(RunInfo run) {
		if (this.registry.isNoop()) {
			return NOTHING;
		}
		RunObservationContext context = new RunObservationContext(run);
		Observation observation = Observation.createNotStarted(this.convention, DEFAULT, () -> context, this.registry)
			.start();
		Observation.Scope scope = run.onThread() ? observation.openScope() : null;
		return (outcome, error) -> {
			context.setOutcome(outcome);
			if (error != null) {
				observation.error(error);
			}
			if (scope != null) {
				scope.close();
			}
			observation.stop();
		};
	}

}
