package dev.membership.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags a run's observation; a bean of this type replaces
 * {@link DefaultRunObservationConvention} (extend that to add to its tags).
 */
public interface RunObservationConvention extends ObservationConvention<RunObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RunObservationContext;
	}

}
