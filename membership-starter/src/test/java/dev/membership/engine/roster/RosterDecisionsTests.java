package dev.membership.engine.roster;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.membership.liveness.Member;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

import static org.assertj.core.api.Assertions.assertThat;

class RosterKeepingTests {

	private static final Instant NOW = Instant.parse("2026-11-22T12:00:00Z");

	private final RosterDecisions keeping = new RosterDecisions(Duration.ofSeconds(10));

	private final Member keeper = new Member("k", "k-1", "10.0.0.1:8080", NOW.minusSeconds(600), NOW,
			List.of("default"), true);

	@Test
	void aNodeIsLiveWhileItsLastHeartbeatIsWithinTheWindowOfDatabaseTime() {
		List<Member> roster = this.keeping.build(this.keeper,
				List.of(node("fresh", NOW.minusSeconds(10)), node("stale", NOW.minusMillis(10_001))), Map.of(),
				List.of(), NOW);
		assertThat(roster).extracting(Member::nodeId, Member::live)
			.containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("k", true),
					org.assertj.core.groups.Tuple.tuple("fresh", true),
					org.assertj.core.groups.Tuple.tuple("stale", false));
	}

	@Test
	void aLeaseHolderIsKeptLiveByItsRenewalsAndOutlivesItsRemovedDocument() {
		Member known = new Member("leader", "leader-1", "10.0.0.2:8080", NOW.minusSeconds(900), NOW.minusSeconds(60),
				List.of("default", "reports"), true);
		LeaseRecord lease = new LeaseRecord("reports", new Holder("leader", "leader-1", "10.0.0.2:8080"), 3,
				NOW.plusSeconds(10), NOW.minusSeconds(300), NOW.minusSeconds(2));
		// its document is old: it renews instead of heartbeating
		List<Member> withDocument = this.keeping.build(this.keeper, List.of(node("leader", NOW.minusSeconds(300))),
				Map.of("reports", lease), List.of(known), NOW);
		assertThat(withDocument).filteredOn((m) -> m.nodeId().equals("leader"))
			.singleElement()
			.satisfies((m) -> assertThat(m.live()).isTrue())
			.satisfies((m) -> assertThat(m.lastHeartbeat()).isEqualTo(NOW.minusSeconds(2)));
		// and gone (TTL, cleanup): the roster's entry stays while the lease is renewed
		List<Member> withoutDocument = this.keeping.build(this.keeper, List.of(), Map.of("reports", lease),
				List.of(known), NOW);
		assertThat(withoutDocument).filteredOn((m) -> m.nodeId().equals("leader"))
			.singleElement()
			.satisfies((m) -> assertThat(m.groups()).containsExactly("default", "reports"))
			.satisfies((m) -> assertThat(m.live()).isTrue());
		// a lease no longer renewed within the window keeps nobody live
		LeaseRecord lapsing = new LeaseRecord("reports", lease.holder(), 3, NOW.plusSeconds(1), lease.acquiredAt(),
				NOW.minusSeconds(11));
		assertThat(this.keeping.build(this.keeper, List.of(), Map.of("reports", lapsing), List.of(known), NOW))
			.extracting(Member::nodeId)
			.containsExactly("k");
	}

	@Test
	void theKeeperListsItselfAndNotAnOlderIncarnationOfItsId() {
		NodeRecord older = new NodeRecord("k", "k-0", "10.0.0.1:8080", NOW.minusSeconds(900), NOW.minusSeconds(5),
				List.of("default"));
		assertThat(this.keeping.build(this.keeper, List.of(older), Map.of(), List.of(), NOW))
			.containsExactly(this.keeper);
	}

	@Test
	void aLiveMembersNewerHeartbeatAloneIsNoChangeButLeavingAndJoiningAre() {
		List<Member> before = this.keeping.build(this.keeper, List.of(node("a", NOW.minusSeconds(4))), Map.of(),
				List.of(), NOW);
		List<Member> later = this.keeping.build(this.keeper, List.of(node("a", NOW.plusSeconds(1))), Map.of(), before,
				NOW.plusSeconds(5));
		assertThat(RosterDecisions.differs(before, later)).isFalse();
		List<Member> joined = this.keeping.build(this.keeper,
				List.of(node("a", NOW.plusSeconds(1)), node("b", NOW.plusSeconds(2))), Map.of(), before,
				NOW.plusSeconds(5));
		assertThat(RosterDecisions.differs(before, joined)).isTrue();
		List<Member> left = this.keeping.build(this.keeper, List.of(node("a", NOW.minusSeconds(4))), Map.of(), before,
				NOW.plusSeconds(20));
		assertThat(RosterDecisions.differs(before, left)).isTrue();
	}

	@Test
	void aMemberCatchesUpFromTheRecentChangesOrSaysItCannot() {
		Member a = member("a", true);
		Member b = member("b", true);
		Member bGone = member("b", false);
		Member c = member("c", true);
		List<Member> v1 = List.of(this.keeper, a, b);
		List<Member> v2 = List.of(this.keeper, a, bGone);
		List<Member> v3 = List.of(this.keeper, a, c);
		RosterChange first = RosterDecisions.change(1, v1, v2, List.of(), 0);
		RosterChange second = RosterDecisions.change(2, v2, v3, null, 0);
		assertThat(first.upserted()).containsExactly(bGone);
		assertThat(second.upserted()).containsExactly(c);
		assertThat(second.removed()).containsExactly(bGone);
		Roster roster = new Roster(3, "k", 1, NOW, List.of(), RosterDecisions.recent(List.of(first), second));
		assertThat(RosterDecisions.catchUp(v1, 1, roster)).containsExactlyInAnyOrderElementsOf(v3);
		assertThat(RosterDecisions.catchUp(v2, 2, roster)).containsExactlyInAnyOrderElementsOf(v3);
		// never read one: reads the whole roster
		assertThat(RosterDecisions.catchUp(v1, 0, roster)).isNull();
		Roster afterAGap = new Roster(3, "k", 1, NOW, List.of(), List.of(second));
		assertThat(RosterDecisions.catchUp(v1, 1, afterAGap)).isNull();
	}

	@Test
	void onlyTheLastFewChangesAreKeptAndNoneThatIsTooLarge() {
		List<RosterChange> kept = List.of();
		for (int i = 0; i < 40; i++) {
			kept = RosterDecisions.recent(kept, new RosterChange(i, List.of(), List.of()));
		}
		assertThat(kept).hasSize(RosterDecisions.RECENT_CHANGES);
		assertThat(kept.get(kept.size() - 1).fromVersion()).isEqualTo(39);
		List<Member> many = new java.util.ArrayList<>();
		for (int i = 0; i <= RosterDecisions.MAX_MEMBERS_PER_CHANGE; i++) {
			many.add(member("n" + i, true));
		}
		assertThat(RosterDecisions.change(7, List.of(), many, List.of(), 0)).isNull();
		// the partitions a change moved count with its members: a first placement is not
		// kept, a join's moves are
		List<Member> three = List.of(member("a", true), member("b", true), member("c", true));
		List<PlacementChange> all = List
			.of(new PlacementChange("t", 1024, range(1024), owners(1024, "a"), owners(1024, null), null));
		assertThat(RosterDecisions.change(7, List.of(), three, all, 1024)).isNull();
		List<PlacementChange> some = List
			.of(new PlacementChange("t", 1024, range(300), owners(300, "c"), owners(300, null), null));
		assertThat(RosterDecisions.change(7, three.subList(0, 2), three, some, 1024).placed()).isEqualTo(some);
		assertThat(RosterDecisions.recent(kept, null)).isEmpty();
	}

	@Test
	void aLargeEarlierChangeIsNotKeptWithASmallOneSoThatEveryMemberDoesNotReadItAgain() {
		List<Member> many = new java.util.ArrayList<>();
		for (int i = 0; i < 40; i++) {
			many.add(member("n" + i, true));
		}
		RosterChange start = new RosterChange(1, many, List.of(), List.of());
		RosterChange join = new RosterChange(2, List.of(member("x", true)), List.of(),
				List.of(new PlacementChange("t", 64, range(2), owners(2, "x"), owners(2, null), null)));
		assertThat(RosterDecisions.recent(List.of(start), join)).containsExactly(join);
		RosterChange leave = new RosterChange(3, List.of(), List.of(member("x", true)), List.of());
		assertThat(RosterDecisions.recent(List.of(join), leave)).containsExactly(join, leave);
		RosterChange restart = new RosterChange(2, many, many, List.of());
		assertThat(RosterDecisions.recent(List.of(start), restart)).as("no larger than the latest")
			.containsExactly(start, restart);
	}

	private static List<Integer> range(int count) {
		return java.util.stream.IntStream.range(0, count).boxed().toList();
	}

	private static List<String> owners(int count, String owner) {
		return java.util.Collections.nCopies(count, owner);
	}

	@Test
	void nodeIdsMayContainSlashes() {
		Member keeperApp = new Member("app", "1", "x", NOW, NOW, List.of("default"), true);
		LeaseRecord held = new LeaseRecord("reports", new Holder("app/w1", "2", "y"), 1, NOW.plusSeconds(5), NOW,
				NOW.minusSeconds(1));
		assertThat(this.keeping.build(keeperApp, List.of(), Map.of("reports", held), List.of(), NOW))
			.extracting(Member::nodeId)
			.containsExactlyInAnyOrder("app", "app/w1");
	}

	@Test
	void aHolderKnownFromItsLeasesAloneListsItsPlainGroupsNotItsPartitions() {
		Member keeper = new Member("k", "1", "x", NOW, NOW, List.of("default"), true);
		Holder twin = new Holder("t", "2", "y");
		Map<String, LeaseRecord> leases = Map.of("reports",
				new LeaseRecord("reports", twin, 1, NOW.plusSeconds(5), NOW, NOW.minusSeconds(1)), "tenants#2",
				new LeaseRecord("tenants#2", twin, 3, NOW.plusSeconds(5), NOW, NOW.minusSeconds(1)));
		assertThat(this.keeping.build(keeper, List.of(), leases, List.of(), NOW))
			.filteredOn((m) -> m.nodeId().equals("t"))
			.singleElement()
			.satisfies((m) -> assertThat(m.groups()).containsExactly("reports"));
	}

	@Test
	void documentsOlderThanTheRetentionAreSeen() {
		List<NodeRecord> records = List.of(node("a", NOW.minusSeconds(601)), node("b", NOW));
		assertThat(RosterDecisions.anyNotSeenSince(records, NOW.minusSeconds(600))).isTrue();
		assertThat(RosterDecisions.anyNotSeenSince(records, NOW.minusSeconds(700))).isFalse();
	}

	private static Member member(String id, boolean live) {
		return new Member(id, id + "-1", "10.0.0.9:8080", NOW.minusSeconds(1000), NOW.minusSeconds(3),
				List.of("default"), live);
	}

	private static NodeRecord node(String id, Instant updatedAt) {
		return new NodeRecord(id, id + "-1", "10.0.0.9:8080", NOW.minusSeconds(1000), updatedAt, List.of("default"));
	}

}
