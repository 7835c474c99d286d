package dev.membership.engine.roster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.membership.spi.GroupAssignment;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

/**
 * A roster write's placements as changes, and a member's catch-up by them: what a join or
 * a move costs every member to read grows with the partitions that moved, not with every
 * partition's owner. Decisions only; no store calls.
 */
final class PlacementChanges {

	private PlacementChanges() {
	}

	/**
	 * What turns {@code before} into {@code after}, group by group in name order; empty
	 * when they are the same.
	 */
	static List<PlacementChange> between(Map<String, GroupAssignment> before, Map<String, GroupAssignment> after) {
		List<PlacementChange> changes = new ArrayList<>();
		new TreeMap<>(after).forEach((group, placed) -> {
			GroupAssignment was = before.get(group);
			if (placed.equals(was)) {
				return;
			}
			boolean resized = (was == null || was.partitions() != placed.partitions());
			List<Integer> moved = new ArrayList<>();
			List<@Nullable String> owners = new ArrayList<>();
			List<@Nullable String> pins = new ArrayList<>();
			for (int p = 0; p < placed.partitions(); p++) {
				if (resized || !Objects.equals(was.owner(p), placed.owner(p))
						|| !Objects.equals(was.pin(p), placed.pin(p))) {
					moved.add(p);
					owners.add(placed.owner(p));
					pins.add(placed.pin(p));
				}
			}
			changes.add(new PlacementChange(group, placed.partitions(), moved, owners, pins, placed.pausedUntil()));
		});
		new TreeMap<>(before).keySet()
			.stream()
			.filter((group) -> !after.containsKey(group))
			.forEach((group) -> changes.add(PlacementChange.removed(group)));
		return changes;
	}

	/**
	 * The placements of {@code roster.version()} from {@code placed} (those of
	 * {@code version}) and the roster's recent changes; null when the changes do not
	 * start from {@code version}, one of them did not record its placement changes, or
	 * one does not fit what it applies to: then the member reads the whole roster.
	 */
	static @Nullable Map<String, GroupAssignment> catchUp(Map<String, GroupAssignment> placed, long version,
			Roster roster) {
		List<RosterChange> since = RosterDecisions.since(roster, version);
		if (since == null) {
			return null;
		}
		Map<String, GroupAssignment> caughtUp = new TreeMap<>(placed);
		for (RosterChange change : since) {
			if (change.placed() == null) {
				return null;
			}
			for (PlacementChange c : change.placed()) {
				if (!apply(caughtUp, c)) {
					return null;
				}
			}
		}
		return caughtUp;
	}

	private static boolean apply(Map<String, GroupAssignment> placed, PlacementChange change) {
		if (change.partitions() == 0) {
			placed.remove(change.group());
			return true;
		}
		GroupAssignment was = placed.get(change.group());
		int count = change.partitions();
		boolean resized = (was == null || was.partitions() != count);
		if (resized && change.moved().size() != count) {
			return false; // a new or resized group lists every partition
		}
		List<@Nullable String> owners = new ArrayList<>(resized ? Collections.nCopies(count, null) : was.owners());
		List<@Nullable String> pins = new ArrayList<>(resized ? Collections.nCopies(count, null) : was.pins());
		for (int i = 0; i < change.moved().size(); i++) {
			int p = change.moved().get(i);
			if (p < 0 || p >= count) {
				return false;
			}
			owners.set(p, change.owners().get(i));
			pins.set(p, change.pins().get(i));
		}
		placed.put(change.group(), new GroupAssignment(count, owners, pins, change.pausedUntil()));
		return true;
	}

}
