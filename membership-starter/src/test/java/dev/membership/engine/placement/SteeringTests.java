package dev.membership.engine.placement;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The coordinator's placement as pins, pauses and moves steer it: a pure function of its
 * inputs.
 */
class SteeringTests {

	private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

	private static Member member(String id, boolean live) {
		return new Member(id, id + "-1", null, NOW, NOW, List.of("default", "t"), live, Map.of("t", 4));
	}

	private static final List<Member> ABC = List.of(member("a", true), member("b", true), member("c", true));

	private static Map<String, GroupAssignment> placed(String... owners) {
		return Map.of("t", new GroupAssignment(4, Arrays.asList(owners)));
	}

	@Test
	void aPinHoldsItsPartitionOnItsLiveNodeWhateverThePolicySays() {
		Map<String, GroupAssignment> steered = Steering.steer(placed("a", "b", "c", "a"), placed("a", "b", "c", "a"),
				List.of(new Steering.Move("t", 0, "c", true)), ABC, NOW);
		assertThat(steered.get("t").owners()).containsExactly("c", "b", "c", "a");
		assertThat(steered.get("t").pin(0)).isEqualTo("c");
		// later placements keep it, from the roster's pins alone
		Map<String, GroupAssignment> next = Steering.steer(placed("a", "b", "c", "b"), steered, List.of(), ABC, NOW);
		assertThat(next.get("t").owners()).containsExactly("c", "b", "c", "b");
		// not while its node is gone; the pin stays for its return
		List<Member> cGone = List.of(member("a", true), member("b", true), member("c", false));
		Map<String, GroupAssignment> gone = Steering.steer(placed("a", "b", "a", "b"), next, List.of(), cGone, NOW);
		assertThat(gone.get("t").owners()).containsExactly("a", "b", "a", "b");
		assertThat(gone.get("t").pin(0)).isEqualTo("c");
		Map<String, GroupAssignment> unpinned = Steering.steer(placed("a", "b", "c", "a"), next,
				List.of(new Steering.Unpin("t", 0)), ABC, NOW);
		assertThat(unpinned.get("t").hasPins()).isFalse();
		assertThat(unpinned.get("t").owners()).containsExactly("a", "b", "c", "a");
	}

	@Test
	void aMoveWithoutAPinPutsItsPartitionOnceAndTakesAPinOff() {
		Map<String, GroupAssignment> pinned = Steering.steer(placed("a", "b", "c", "a"), placed("a", "b", "c", "a"),
				List.of(new Steering.Move("t", 0, "c", true)), ABC, NOW);
		Map<String, GroupAssignment> moved = Steering.steer(placed("a", "b", "c", "a"), pinned,
				List.of(new Steering.Move("t", 0, "b", false)), ABC, NOW);
		assertThat(moved.get("t").owners()).containsExactly("b", "b", "c", "a");
		assertThat(moved.get("t").hasPins()).isFalse();
	}

	@Test
	void aPauseKeepsEveryUnitOnItsPreviousOwnerButADepartedOnesUntilItEnds() {
		Instant until = NOW.plusSeconds(600);
		Map<String, GroupAssignment> previous = placed("a", "b", "c", "a");
		List<Member> withD = List.of(member("a", true), member("b", true), member("c", false), member("d", true));
		// the policy would give d a share and c's partition to someone: only c's moves
		Map<String, GroupAssignment> paused = Steering.steer(placed("d", "b", "d", "a"), previous,
				List.of(new Steering.Pause(until)), withD, NOW);
		assertThat(paused.get("t").owners()).containsExactly("a", "b", "d", "a");
		assertThat(paused.get("t").pausedUntil()).isEqualTo(until);
		Map<String, GroupAssignment> stillPaused = Steering.steer(placed("d", "d", "d", "a"), paused, List.of(), withD,
				NOW.plusSeconds(599));
		assertThat(stillPaused.get("t").owners()).containsExactly("a", "b", "d", "a");
		Map<String, GroupAssignment> over = Steering.steer(placed("d", "b", "d", "a"), paused, List.of(), withD, until);
		assertThat(over.get("t").owners()).containsExactly("d", "b", "d", "a");
		assertThat(over.get("t").pausedUntil()).isNull();
		Map<String, GroupAssignment> resumed = Steering.steer(placed("d", "b", "d", "a"), paused,
				List.of(new Steering.Resume()), withD, NOW);
		assertThat(resumed.get("t").pausedUntil()).isNull();
	}

}
