package dev.membership.engine.placement;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart grace's decisions: who is away, and what an away member keeps (its own
 * partitions, nothing more).
 */
class RestartGracePlacementTests {

	private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");

	private final RestartGrace grace = new RestartGrace(Duration.ofSeconds(30));

	@Test
	void aMemberSeenWithinTheGraceIsAwayOneSeenBeforeItOrLiveUnderANewIncarnationIsNot() {
		List<Member> members = List.of(member("a", "1", false, NOW.minusSeconds(10)),
				member("b", "1", false, NOW.minusSeconds(40)), member("c", "1", false, NOW.minusSeconds(5)),
				member("c", "2", true, NOW), member("d", "1", true, NOW));
		assertThat(this.grace.away(members, NOW)).containsExactly("a");
		assertThat(new RestartGrace(Duration.ZERO).away(members, NOW)).isEmpty();
	}

	@Test
	void aNodeSeesAnAwayMemberAsLiveUntilItsGraceEndsAndAsksOnceForTheSameList() {
		List<Member> members = List.of(member("a", "1", false, NOW.minusSeconds(10)),
				member("b", "1", false, NOW.minusSeconds(40)), member("d", "1", true, NOW));
		List<Member> placing = this.grace.placing(members, NOW);
		assertThat(placing).extracting(Member::live).containsExactly(true, false, true);
		assertThat(this.grace.placing(members, NOW.plusSeconds(19))).isSameAs(placing);
		assertThat(this.grace.placing(members, NOW.plusSeconds(20))).extracting(Member::live)
			.containsExactly(false, false, true);
		assertThat(this.grace.placing(members, NOW.minusSeconds(1))).as("an earlier estimate of the database's time")
			.extracting(Member::live)
			.containsExactly(true, false, true);
		List<Member> allLive = List.of(member("d", "1", true, NOW));
		assertThat(this.grace.placing(allLive, NOW)).isSameAs(allLive);
		assertThat(new RestartGrace(Duration.ZERO).placing(members, NOW)).isSameAs(members);
	}

	@Test
	void anAwayMemberGetsBackThePartitionsItHadAndNoOthers() {
		Map<String, GroupAssignment> previous = Map.of("t", assignment("a", "a", "b", "b", "c", "c"), "plain",
				assignment("a"));
		// placed over the live members: a's partitions spread over b and c, the plain
		// group moved to b
		Map<String, GroupAssignment> placed = Map.of("t", assignment("b", "c", "b", "b", "c", "c"), "plain",
				assignment("b"));
		Map<String, GroupAssignment> kept = RestartGrace.keepForAway(placed, previous, Set.of("a"));
		assertThat(kept.get("t").owners()).containsExactly("a", "a", "b", "b", "c", "c");
		assertThat(kept.get("plain").owners()).as("a leadership does not wait").containsExactly("b");
		assertThat(RestartGrace.keepForAway(placed, previous, Set.of())).isSameAs(placed);
	}

	private static GroupAssignment assignment(String... owners) {
		return new GroupAssignment(owners.length, Arrays.asList(owners));
	}

	private static Member member(String id, String incarnation, boolean live, Instant last) {
		return new Member(id, incarnation, "127.0.0.1", NOW.minusSeconds(600), last, List.of("t"), live,
				Map.of("t", 6));
	}

}
