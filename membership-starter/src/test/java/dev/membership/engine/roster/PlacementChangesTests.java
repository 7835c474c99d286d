package dev.membership.engine.roster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.membership.spi.GroupAssignment;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A member's catch-up on the placements by the roster's changes: decisions only, no
 * store.
 */
class PlacementChangesTests {

	private static final Instant NOW = Instant.parse("2026-11-26T00:00:00Z");

	@Test
	void aMoveIsOnePartitionAndCatchingUpByItGivesThePlacementWritten() {
		Map<String, GroupAssignment> before = Map.of("tenants", placed("a", "b", "c", "a"), "reports", placed("b"));
		Map<String, GroupAssignment> after = Map.of("tenants", placed("a", "b", "c", "d"), "reports", placed("b"));
		List<PlacementChange> changes = PlacementChanges.between(before, after);
		assertThat(changes).containsExactly(
				new PlacementChange("tenants", 4, List.of(3), List.of("d"), Arrays.asList((String) null), null));
		assertThat(PlacementChanges.catchUp(before, 5, roster(6, change(5, changes)))).isEqualTo(after);
		assertThat(PlacementChanges.between(after, after)).isEmpty();
	}

	@Test
	void aNewOrResizedGroupListsEveryPartitionAndARemovedOneIsSaidSo() {
		Map<String, GroupAssignment> before = Map.of("tenants", placed("a", "b"), "reports", placed("b"));
		Map<String, GroupAssignment> after = Map.of("tenants", placed("a", "b", "a"), "jobs", placed("c"));
		List<PlacementChange> changes = PlacementChanges.between(before, after);
		assertThat(changes).extracting(PlacementChange::group).containsExactly("jobs", "tenants", "reports");
		assertThat(changes.get(1).moved()).containsExactly(0, 1, 2);
		assertThat(changes.get(2).partitions()).isZero();
		assertThat(PlacementChanges.catchUp(before, 1, roster(2, change(1, changes)))).isEqualTo(after);
	}

	@Test
	void pinsAndThePauseTravelWithTheChanges() {
		Map<String, GroupAssignment> before = Map.of("tenants", placed("a", "b", "c"));
		GroupAssignment steered = new GroupAssignment(3, List.of("a", "b", "c"), Arrays.asList(null, "b", null),
				NOW.plusSeconds(60));
		Map<String, GroupAssignment> after = Map.of("tenants", steered);
		List<PlacementChange> changes = PlacementChanges.between(before, after);
		assertThat(changes.get(0).moved()).containsExactly(1);
		assertThat(PlacementChanges.catchUp(before, 1, roster(2, change(1, changes)))).isEqualTo(after);
		// and off again
		assertThat(PlacementChanges.catchUp(after, 2, roster(3, change(2, PlacementChanges.between(after, before)))))
			.isEqualTo(before);
	}

	@Test
	void withoutAChangeFromItsVersionOrWithOneThatDidNotRecordThePlacementsAMemberReadsTheWholeRoster() {
		Map<String, GroupAssignment> before = Map.of("tenants", placed("a", "b"));
		Map<String, GroupAssignment> after = Map.of("tenants", placed("b", "b"));
		RosterChange recorded = change(2, PlacementChanges.between(before, after));
		// too far behind
		assertThat(PlacementChanges.catchUp(before, 1, roster(3, recorded))).isNull();
		assertThat(PlacementChanges.catchUp(before, 2, roster(3, new RosterChange(2, List.of(), List.of())))).isNull();
		// a change that does not fit what it applies to: a partition out of range, a new
		// group not listed whole
		RosterChange outOfRange = change(2, List
			.of(new PlacementChange("tenants", 2, List.of(2), List.of("a"), Arrays.asList((String) null), null)));
		assertThat(PlacementChanges.catchUp(before, 2, roster(3, outOfRange))).isNull();
		RosterChange partOfANewGroup = change(2,
				List.of(new PlacementChange("jobs", 2, List.of(0), List.of("a"), Arrays.asList((String) null), null)));
		assertThat(PlacementChanges.catchUp(before, 2, roster(3, partOfANewGroup))).isNull();
	}

	@Test
	void catchingUpBySeveralChangesGivesTheLastPlacementForRandomPlacements() {
		Random random = new Random(32);
		for (int run = 0; run < 200; run++) {
			Map<String, GroupAssignment> v1 = random(random);
			Map<String, GroupAssignment> v2 = random(random);
			Map<String, GroupAssignment> v3 = random(random);
			Roster roster = roster(3, change(1, PlacementChanges.between(v1, v2)),
					change(2, PlacementChanges.between(v2, v3)));
			assertThat(PlacementChanges.catchUp(v1, 1, roster)).as("run %d", run).isEqualTo(v3);
			assertThat(PlacementChanges.catchUp(v2, 2, roster)).as("run %d", run).isEqualTo(v3);
		}
	}

	private static Map<String, GroupAssignment> random(Random random) {
		Map<String, GroupAssignment> placed = new HashMap<>();
		for (String group : List.of("tenants", "reports", "jobs")) {
			if (random.nextInt(4) == 0) {
				continue;
			}
			int count = 1 + random.nextInt(6);
			List<@Nullable String> owners = new ArrayList<>();
			List<@Nullable String> pins = new ArrayList<>();
			for (int p = 0; p < count; p++) {
				owners.add(random.nextInt(5) == 0 ? null : "n" + random.nextInt(3));
				pins.add(random.nextInt(5) == 0 ? "n" + random.nextInt(3) : null);
			}
			placed.put(group, new GroupAssignment(count, owners, pins,
					random.nextBoolean() ? NOW.plusSeconds(random.nextInt(3)) : null));
		}
		return placed;
	}

	private static GroupAssignment placed(String... owners) {
		return new GroupAssignment(owners.length, Arrays.asList(owners));
	}

	private static RosterChange change(long from, List<PlacementChange> placed) {
		return new RosterChange(from, List.of(), List.of(), placed);
	}

	private static Roster roster(long version, RosterChange... changes) {
		return new Roster(version, "k", 1, NOW, List.of(), List.of(changes));
	}

}
