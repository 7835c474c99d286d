package dev.membership.simulation;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;

import dev.membership.engine.MembershipSettings;

/**
 * How one simulation runs. The node settings are the production defaults (renew every 5 s, lease 15 s, liveness 10 s,
 * safety margin 1.5 s), in virtual time.
 *
 * @param seed everything random is drawn from it
 * @param nodes how many nodes (0: 2 to 7, from the seed)
 * @param chaos how long faults are injected (virtual time)
 * @param meanFaultGap mean time between two faults
 * @param operationTimeout how long a node waits for the store before it gives up on a call
 * @param maxDrift how far a node's clock rate may be from the server's (the documented bound is 200 ppm)
 * @param safetyMargin null for the default
 * @param drainTimeout how long a graceful hand-over waits for leader-only work (the simulated jobs are shorter)
 * @param defect a deliberate bug in the store, or none
 */
record SimulationConfig(long seed, int nodes, Duration chaos, Duration meanFaultGap, Duration operationTimeout,
		double maxDrift, Duration safetyMargin, Duration drainTimeout, DefectiveStore.Defect defect) {

	/** The default drift stays within the bound {@code ServerClock} assumes. */
	static final double DOCUMENTED_DRIFT = 199e-6;

	/** The production code and store as they are, or a deliberately broken variant of them. */
	enum Variant {

		AS_BUILT, LATE_ACQUISITION_STARTS_A_TERM, LATE_RENEWAL_SHORTENS_THE_LEASE,

		/** No safety margin, and clocks 2% apart: a hundred times the drift the clock estimate allows for. */
		NO_SAFETY_MARGIN_AND_DRIFT_BEYOND_THE_BOUND,

		/** A graceful stop or resign hands over without waiting for running leader-only work. */
		NO_DRAIN,

		/** Acquisitions come back without the store's stamp, which shows a jump of its clock to the acquirer. */
		ACQUISITION_NOT_STAMPED,

		/** A take-over on a notice takes whatever term the node that let go holds now. */
		TAKE_OVER_ANY_TERM_OF_THE_SENDER;

		SimulationConfig apply(SimulationConfig config) {
			return switch (this) {
				case AS_BUILT -> config;
				case LATE_ACQUISITION_STARTS_A_TERM ->
					config.withDefect(DefectiveStore.Defect.LATE_ACQUISITION_STARTS_A_TERM);
				case LATE_RENEWAL_SHORTENS_THE_LEASE ->
					config.withDefect(DefectiveStore.Defect.LATE_RENEWAL_SHORTENS_THE_LEASE);
				case NO_SAFETY_MARGIN_AND_DRIFT_BEYOND_THE_BOUND -> config.withSafetyMargin(Duration.ZERO, 0.02);
				case NO_DRAIN -> config.withDrainTimeout(Duration.ZERO);
				case ACQUISITION_NOT_STAMPED -> config.withDefect(DefectiveStore.Defect.ACQUISITION_NOT_STAMPED);
				case TAKE_OVER_ANY_TERM_OF_THE_SENDER ->
					config.withDefect(DefectiveStore.Defect.TAKE_OVER_ANY_TERM_OF_THE_SENDER);
			};
		}

	}

	static SimulationConfig standard(long seed) {
		return new SimulationConfig(seed, 0, Duration.ofMinutes(30), Duration.ofSeconds(8), Duration.ofSeconds(2),
				DOCUMENTED_DRIFT, null, Duration.ofSeconds(2), DefectiveStore.Defect.NONE);
	}

	SimulationConfig withSafetyMargin(Duration margin, double drift) {
		return new SimulationConfig(this.seed, this.nodes, this.chaos, this.meanFaultGap, this.operationTimeout, drift,
				margin, this.drainTimeout, this.defect);
	}

	SimulationConfig withDefect(DefectiveStore.Defect broken) {
		return new SimulationConfig(this.seed, this.nodes, this.chaos, this.meanFaultGap, this.operationTimeout,
				this.maxDrift, this.safetyMargin, this.drainTimeout, broken);
	}

	SimulationConfig withChaos(Duration duration) {
		return new SimulationConfig(this.seed, this.nodes, duration, this.meanFaultGap, this.operationTimeout,
				this.maxDrift, this.safetyMargin, this.drainTimeout, this.defect);
	}

	SimulationConfig withDrainTimeout(Duration timeout) {
		return new SimulationConfig(this.seed, this.nodes, this.chaos, this.meanFaultGap, this.operationTimeout,
				this.maxDrift, this.safetyMargin, timeout, this.defect);
	}

	MembershipSettings settings(String nodeId, Collection<String> groups, int partitions) {
		MembershipSettings.Builder builder = MembershipSettings.builder(nodeId);
		if (partitions > 1) {
			builder.partitions(Simulation.PARTITIONED, partitions);
		}
		return builder.groups(Set.copyOf(groups))
			.safetyMargin(this.safetyMargin)
			.drainTimeout(this.drainTimeout)
			.build();
	}

}
