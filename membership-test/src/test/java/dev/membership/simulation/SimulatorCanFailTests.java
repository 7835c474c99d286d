package dev.membership.simulation;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator is only worth something if it fails on a broken election: each
 * deliberately broken variant must be caught within a bounded number of seeds, by the
 * invariant it breaks (a liveness complaint does not stand for a broken safety rule),
 * with a seed that replays the failure. A seed caught first by another invariant (a fire
 * lost where the defect cut a crashed holder's lease short) is a real consequence of the
 * defect, but no proof that the broken rule's own check works: the scan goes on, and such
 * seeds stay rare.
 */
@ExtendWith(QuietMembershipLogs.class)
class SimulatorCanFailTests {

	private static final int MAX_SEEDS = 300;

	@ParameterizedTest
	@EnumSource(value = SimulationConfig.Variant.class, mode = Mode.EXCLUDE, names = "AS_BUILT")
	void aBrokenVariantIsCaughtWithAReplayableSeed(SimulationConfig.Variant variant) {
		long firstSeed = Long.getLong("membership.simulation.seed", System.nanoTime());
		SimulationResult caught = null;
		List<String> otherwise = new ArrayList<>();
		for (long seed = firstSeed; seed < firstSeed + MAX_SEEDS && caught == null; seed++) {
			SimulationResult result = new Simulation(variant.config(seed)).run();
			if (result.failed() && variant.trips().stream().anyMatch((i) -> i.reported(result.violation()))) {
				caught = result;
			}
			else if (result.failed()) {
				// a defect's consequence seen first (a fire lost to a lease cut short by
				// a
				// crashed holder, say): real, but not the proof asked for here
				otherwise.add(seed + ": " + result.violation());
			}
		}
		assertThat(caught)
			.as("%s caught by one of %s within %d seeds from %d; caught otherwise: %s", variant, variant.trips(),
					MAX_SEEDS, firstSeed, otherwise)
			.isNotNull();
		// the invariant the defect breaks is what catches it, not now and then
		assertThat(otherwise).as("%s caught otherwise before its own invariant", variant).hasSizeLessThan(3);
		System.out.println(variant + " caught: " + caught.summary() + " (after " + (caught.seed() - firstSeed + 1)
				+ " seeds)\n  replay: " + caught.replay() + " -Dmembership.simulation.variant=" + variant);
		SimulationResult replayed = new Simulation(variant.config(caught.seed())).run();
		assertThat(replayed.violation()).isEqualTo(caught.violation());
		assertThat(replayed.trace()).isEqualTo(caught.trace());
	}

}
