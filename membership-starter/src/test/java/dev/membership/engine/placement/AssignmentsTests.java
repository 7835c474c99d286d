package dev.membership.engine.placement;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.membership.engine.term.Unit;
import dev.membership.liveness.Member;
import dev.membership.spi.BalancedPlacement;
import dev.membership.spi.GroupAssignment;

import static org.assertj.core.api.Assertions.assertThat;

/** Who may try for a unit, at fixed placements: decisions only, no store, no clock. */
class AssignmentsTests {

	private static final Unit P0 = new Unit("tenants", 0, 2);

	private static final Unit P1 = new Unit("tenants", 1, 2);

	private static Member member(String id) {
		return new Member(id, id + "-1", null, null, null, List.of("default"), true, Map.of("tenants", 2));
	}

	private static Assignments placed(String self, String... owners) {
		Assignments assignments = new Assignments(self, new BalancedPlacement());
		assignments.take("a", Map.of("tenants", new GroupAssignment(2, Arrays.asList(owners))), 1);
		return assignments;
	}

	@Test
	void aUnitPlacedHereIsTriedForAndOnePlacedElsewhereIsLeftAlone() {
		Assignments b = placed("b", "a", "b");
		List<Member> live = List.of(member("a"), member("b"));
		assertThat(b.mayCompete(P1, false, null, null, live)).isTrue();
		assertThat(b.mayCompete(P0, false, null, null, live)).isFalse();
		assertThat(b.placedElsewhere(P0)).isTrue();
		assertThat(b.placedElsewhere(P1)).isFalse();
	}

	@Test
	void whenThePlacedOwnerReleasesTheNodeThePolicyNamesWithoutItTakesOver() {
		List<Member> live = List.of(member("a"), member("b"), member("c"));
		Assignments b = placed("b", "a", "c");
		Assignments c = placed("c", "a", "c");
		// a released p0: b owns nothing, so the policy gives p0 to b, not to c (which has
		// p1)
		assertThat(b.mayCompete(P0, true, "a", null, live)).isTrue();
		assertThat(c.mayCompete(P0, true, "a", null, live)).isFalse();
	}

	@Test
	void aReleaseByAnotherNodeThanThePlacedOneIsAMoveThatOnlyThePlacedOneTakes() {
		// the coordinator moved p0 from a to c; a released it: only c tries, b stays out
		// (no double move)
		List<Member> live = List.of(member("a"), member("b"), member("c"));
		assertThat(placed("b", "c", "a").mayCompete(P0, true, "a", null, live)).isFalse();
		assertThat(placed("c", "c", "a").mayCompete(P0, true, "a", null, live)).isTrue();
	}

	@Test
	void aReleaseThatNamesItsSuccessorIsTakenByThatNodeAloneWhateverAnOlderPlacementSays() {
		// b's placement is older than a's: it still names a, but a moved p0 to d
		List<Member> live = List.of(member("a"), member("b"), member("c"), member("d"));
		assertThat(placed("b", "a", "c").mayCompete(P0, true, "a", "d", live)).isFalse();
		assertThat(placed("d", "a", "c").mayCompete(P0, true, "a", "d", live)).isTrue();
	}

	@Test
	void aPlacedOwnerThatIsNoLongerLiveIsSucceededWithoutAnyRelease() {
		List<Member> live = List.of(member("b"), member("c"));
		Assignments b = placed("b", "a", "c");
		assertThat(b.mayCompete(P0, false, null, null, live)).isTrue();
		assertThat(placed("c", "a", "c").mayCompete(P0, false, null, null, live)).isFalse();
	}

	@Test
	void partitionsNobodyPlacedWaitButAPlainGroupNobodyPlacedIsRacedFor() {
		Assignments none = new Assignments("b", new BalancedPlacement());
		List<Member> live = List.of(member("b"));
		assertThat(none.mayCompete(P0, false, null, null, live)).isFalse();
		assertThat(none.mayCompete(Unit.group("reports"), false, null, null, live)).isTrue();
		assertThat(none.mayCompete(Unit.group("default"), false, null, null, live)).isTrue();
	}

	@Test
	void theSuccessorOfALeaverFollowsTheMembersAndThePlacementAsTheyAreNowNotAsFirstAsked() {
		Unit p0 = new Unit("tenants", 0, 4);
		Assignments b = new Assignments("b", new BalancedPlacement());
		b.take("a", Map.of("tenants", new GroupAssignment(4, Arrays.asList("a", "b", "c", "c"))), 1);
		List<Member> live = List.of(member4("a"), member4("b"), member4("c"));
		// without a, p0 goes to b (one partition against c's two)
		assertThat(b.successor(p0, "a", live)).isEqualTo("b");
		assertThat(b.successor(p0, "a", live)).as("asked again").isEqualTo("b");
		assertThat(b.successor(new Unit("tenants", 3, 4), "c", live)).as("another leaver between").isEqualTo("b");
		assertThat(b.successor(p0, "a", live)).as("and the first again").isEqualTo("b");
		// a member more: the one with nothing takes it
		assertThat(b.successor(p0, "a", List.of(member4("a"), member4("b"), member4("c"), member4("d"))))
			.isEqualTo("d");
		// another placement: b holds two now, c one
		b.take("a", Map.of("tenants", new GroupAssignment(4, Arrays.asList("a", "b", "b", "c"))), 1);
		assertThat(b.successor(p0, "a", live)).isEqualTo("c");
		// another leaver
		assertThat(b.successor(new Unit("tenants", 3, 4), "c", live)).isEqualTo("a");
	}

	private static Member member4(String id) {
		return new Member(id, id + "-1", null, null, null, List.of("default"), true, Map.of("tenants", 4));
	}

}
