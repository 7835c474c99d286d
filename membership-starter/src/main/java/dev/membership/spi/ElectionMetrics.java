package dev.membership.spi;

/**
 * Outcomes of the election loop's store calls, for metrics. Called on the election thread; must not block.
 */
public interface ElectionMetrics {

	enum AcquisitionOutcome {

		ACQUIRED, CONFLICT, ERROR

	}

	enum RenewalOutcome {

		RENEWED, LOST, ERROR

	}

	default void acquisition(String group, AcquisitionOutcome outcome) {
	}

	default void renewal(String group, RenewalOutcome outcome) {
	}

	static ElectionMetrics none() {
		return new ElectionMetrics() {
		};
	}

}
