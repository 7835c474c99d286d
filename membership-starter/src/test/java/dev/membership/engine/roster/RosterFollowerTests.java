package dev.membership.engine.roster;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.liveness.Member;

import static org.assertj.core.api.Assertions.assertThat;

/** What a follower shows of the roster it read. */
class RosterFollowerTests {

	private static final Instant WRITTEN = Instant.parse("2026-11-23T12:00:00Z");

	private static Member member(String id, Instant heartbeat, boolean live) {
		return new Member(id, id + "-1", id + ":8080", Instant.parse("2026-11-23T11:00:00Z"), heartbeat,
				List.of("default"), live);
	}

	@Test
	void aLiveMembersHeartbeatIsShownNoOlderThanTheRostersWrite() {
		List<Member> shown = RosterFollower.shown(List.of(member("a", WRITTEN.minusSeconds(4), true),
				member("b", WRITTEN.plusSeconds(1), true), member("c", WRITTEN.minusSeconds(60), false)), WRITTEN);
		assertThat(shown).extracting(Member::lastHeartbeat)
			.containsExactly(WRITTEN, WRITTEN.plusSeconds(1), WRITTEN.minusSeconds(60));
	}

	@Test
	void withoutTheWriteTimeTheRosterIsShownAsRead() {
		List<Member> stored = List.of(member("a", WRITTEN.minusSeconds(4), true));
		assertThat(RosterFollower.shown(stored, null)).isEqualTo(stored);
	}

	@Test
	void aRunningNodeListsItselfLiveInPlaceOfAnyOtherEntryOfItsId() {
		Member self = member("a", WRITTEN, true);
		List<Member> with = RosterFollower
			.withSelf(List.of(member("a", WRITTEN.minusSeconds(60), false), member("b", WRITTEN, true)), self);
		assertThat(with).containsExactlyInAnyOrder(self, member("b", WRITTEN, true));
	}

}
