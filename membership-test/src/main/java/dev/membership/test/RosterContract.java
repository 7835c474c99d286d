package dev.membership.test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

import static dev.membership.test.StoreFixtures.A;
import static dev.membership.test.StoreFixtures.B;
import static dev.membership.test.StoreFixtures.HOUR;
import static dev.membership.test.StoreFixtures.member;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a store must do with the roster: versioned writes fenced by the keeper's epoch and
 * sequence, and a read of the leases that carries the roster's recent changes only when
 * its version moved. Part of {@link MembershipStoreContract}.
 */
interface RosterContract {

	/** The store under test, on fresh collections. */
	MembershipStore store();

	@Test
	default void findLeasesReadsTheGroupsLeasesAndTheRosterOnlyWhenItsVersionChanged() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g1", A, now, now.plus(HOUR));
		store().tryAcquire("g2", B, now, now.plus(HOUR));
		LeaseReading none = store().findLeases(List.of("g1", "g3"), 0);
		assertThat(none.leases()).containsOnlyKeys("g1");
		assertThat(none.leases().get("g1").isHeldBy(A)).isTrue();
		assertThat(none.roster()).isNull();
		assertThat(store().findRoster()).isEmpty();

		long version = store().writeRoster(List.of(member("node-a", true)), List.of(), "node-a", 1, 1).getAsLong();
		LeaseReading first = store().findLeases(List.of("g1", "g2"), 0);
		assertThat(first.leases()).containsOnlyKeys("g1", "g2");
		assertThat(first.roster().version()).isEqualTo(version);
		assertThat(store().findLeases(List.of("g1"), version).roster()).isNull();
		assertThat(store().findLeases(List.of("g1"), version - 1).roster()).isNotNull();
	}

	@Test
	default void writeRosterGrowsTheVersionAndKeepsTheMembersAndTheRecentChanges() {
		Instant before = store().serverTime().orElseThrow();
		Member live = member("node-a", true);
		Member gone = member("node-b", false);
		RosterChange first = new RosterChange(0, List.of(live, gone), List.of());
		assertThat(store().writeRoster(List.of(live, gone), List.of(first), "node-a", 4, 1)).hasValue(1);
		Roster roster = store().findRoster().get();
		assertThat(roster.version()).isEqualTo(1);
		assertThat(roster.keeperNodeId()).isEqualTo("node-a");
		assertThat(roster.epoch()).isEqualTo(4);
		assertThat(roster.writtenAt()).isBetween(before, store().serverTime().orElseThrow());
		assertThat(roster.members()).containsExactly(live, gone);
		assertThat(roster.changes()).containsExactly(first);
		RosterChange second = new RosterChange(1, List.of(), List.of(gone));
		assertThat(store().writeRoster(List.of(live), List.of(first, second), "node-a", 4, 2)).hasValue(2);
		assertThat(store().findRoster().get().members()).containsExactly(live);
		// what every member reads: the recent changes, not the member list
		Roster header = store().findLeases(List.of(), 1).roster();
		assertThat(header.version()).isEqualTo(2);
		assertThat(header.members()).isEmpty();
		assertThat(header.changes()).containsExactly(first, second);
	}

	@Test
	default void writeRosterIsFencedByTheKeepersEpochAndItsOwnSequence() {
		Member one = member("node-a", true);
		Member two = member("node-b", true);
		assertThat(store().writeRoster(List.of(one), List.of(), "node-a", 4, 2)).hasValue(1);
		// a write of the same keeper sent before that one, applied after it
		assertThat(store().writeRoster(List.of(two), List.of(), "node-a", 4, 1)).isEmpty();
		// a new keeper, then the deposed one
		assertThat(store().writeRoster(List.of(two), List.of(), "node-b", 5, 1)).hasValue(2);
		assertThat(store().writeRoster(List.of(one), List.of(), "node-a", 4, 3)).isEmpty();
		Roster roster = store().findRoster().get();
		assertThat(roster.version()).isEqualTo(2);
		assertThat(roster.keeperNodeId()).isEqualTo("node-b");
		assertThat(roster.members()).containsExactly(two);
	}

	@Test
	default void theRosterKeepsThePlacementsTheirPinsAndPauseAndTheMembersPartitionCountsAndEveryMemberReadsThem() {
		Member member = new Member("node-a", "node-a-1", "127.0.0.1:1001", Instant.ofEpochMilli(1_700_000_000_123L),
				Instant.ofEpochMilli(1_700_000_060_123L), List.of("default", "tenants"), true, Map.of("tenants", 3));
		List<@Nullable String> owners = new ArrayList<>(List.of("node-a", "node-b"));
		owners.add(null);
		List<@Nullable String> pins = new ArrayList<>(java.util.Arrays.asList(null, "node-b", null));
		Instant paused = Instant.ofEpochMilli(1_700_000_600_456L);
		Map<String, GroupAssignment> placed = Map.of("tenants", new GroupAssignment(3, owners, pins, paused), "reports",
				new GroupAssignment(1, List.of("node-b")));
		assertThat(store().writeRoster(List.of(member), List.of(), placed, "node-a", 1, 1)).hasValue(1);
		Roster roster = store().findRoster().get();
		assertThat(roster.assignments()).isEqualTo(placed);
		assertThat(roster.members()).containsExactly(member);
	}

	@Test
	default void theChangesKeepWhatTheyMovedInThePlacementsAndEveryMemberReadsThemWithoutThePlacements() {
		Member member = member("node-a", true);
		Instant paused = Instant.ofEpochMilli(1_700_000_600_456L);
		List<@Nullable String> owners = new ArrayList<>(List.of("node-b"));
		owners.add(null);
		List<@Nullable String> pins = new ArrayList<>(java.util.Arrays.asList(null, "node-b"));
		List<PlacementChange> moved = List.of(
				new PlacementChange("tenants", 4, List.of(1, 3), owners, pins, paused), new PlacementChange("jobs", 1,
						List.of(0), List.of("node-a"), java.util.Arrays.asList((String) null), null),
				PlacementChange.removed("reports"));
		RosterChange recorded = new RosterChange(1, List.of(member), List.of(), moved);
		RosterChange nothingMoved = new RosterChange(2, List.of(), List.of(), List.of());
		RosterChange notRecorded = new RosterChange(3, List.of(), List.of());
		Map<String, GroupAssignment> placed = Map.of("tenants",
				new GroupAssignment(4, java.util.Arrays.asList("node-a", "node-b", "node-a", null)));
		assertThat(store().writeRoster(List.of(member), List.of(recorded, nothingMoved, notRecorded), placed, "node-a",
				1, 1))
			.hasValue(1);
		assertThat(store().findRoster().get().changes()).containsExactly(recorded, nothingMoved, notRecorded);
		Roster header = store().findLeases(List.of(), 0).roster();
		assertThat(header.changes()).containsExactly(recorded, nothingMoved, notRecorded);
		assertThat(header.changes().get(2).placed()).isNull();
		assertThat(header.assignments()).isEmpty();
		assertThat(header.members()).isEmpty();
	}

}
