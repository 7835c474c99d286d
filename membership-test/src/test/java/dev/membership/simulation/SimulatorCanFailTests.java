package dev.membership.simulation;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator is only worth something if it fails on a broken election: each
 * deliberately broken variant must be caught within a bounded number of seeds, by the
 * invariant it breaks (a liveness complaint does not stand for a broken safety rule),
 * with a seed that replays the failure.
 */
@ExtendWith(QuietMembershipLogs.class)
class SimulatorCanFailTests {

	private static final int MAX_SEEDS = 300;

	@ParameterizedTest
	@EnumSource(value = SimulationConfig.Variant.class, mode = Mode.EXCLUDE, names = "AS_BUILT")
	void aBrokenVariantIsCaughtWithAReplayableSeed(SimulationConfig.Variant variant) {
		long firstSeed = Long.getLong("membership.simulation.seed", System.nanoTime());
		SimulationResult caught = null;
		for (long seed = firstSeed; seed < firstSeed + MAX_SEEDS && caught == null; seed++) {
			SimulationResult result = new Simulation(variant.config(seed)).run();
			if (result.failed()) {
				caught = result;
			}
		}
		assertThat(caught).as("%s caught within %d seeds from %d", variant, MAX_SEEDS, firstSeed).isNotNull();
		SimulationResult first = caught;
		assertThat(variant.trips()).as("%s trips one of %s, not: %s", variant, variant.trips(), first.violation())
			.anyMatch((invariant) -> invariant.reported(first.violation()));
		System.out.println(variant + " caught: " + caught.summary() + " (after " + (caught.seed() - firstSeed + 1)
				+ " seeds)\n  replay: " + caught.replay() + " -Dmembership.simulation.variant=" + variant);
		SimulationResult replayed = new Simulation(variant.config(caught.seed())).run();
		assertThat(replayed.violation()).isEqualTo(caught.violation());
		assertThat(replayed.trace()).isEqualTo(caught.trace());
	}

}
