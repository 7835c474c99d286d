package dev.membership.mongo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.bson.Document;
import org.jspecify.annotations.Nullable;

import dev.membership.spi.GroupAssignment;
import dev.membership.spi.PlacementChange;

/**
 * How placements and partition counts are kept in documents: as arrays of small documents
 * keyed by a {@code g} field rather than as sub-documents keyed by group name, since a
 * group name may hold characters a field name may not. <pre>
 * assignments: [{g: "tenants", n: 8, o: ["node-a", "node-b", null, ...],     (the roster; p: operators' pins,
 *                p: [null, "node-b", ...], u: ISODate(...)}]                     u: a pause of rebalancing, if any)
 * partitions:  [{g: "tenants", n: 8}]                                           (node documents, roster entries)
 * placed:      [{g: "tenants", n: 8, i: [2, 5], o: ["node-c", "node-c"],   (a roster change: the partitions that
 *                p: [null, "node-c"], u: ISODate(...)}]                        moved, p only when any is pinned;
 *                                                                              n: 0 when the group is gone)
 * </pre>
 */
final class Placements {

	private Placements() {
	}

	static List<Document> toDocuments(Map<String, GroupAssignment> assignments) {
		List<Document> placed = new ArrayList<>(assignments.size());
		new TreeMap<>(assignments).forEach((group, assignment) -> {
			Document d = new Document("g", group).append("n", assignment.partitions()).append("o", assignment.owners());
			if (assignment.hasPins()) {
				d.append("p", assignment.pins());
			}
			if (assignment.pausedUntil() != null) {
				d.append("u", Date.from(assignment.pausedUntil()));
			}
			placed.add(d);
		});
		return placed;
	}

	static Map<String, GroupAssignment> toAssignments(@Nullable List<Document> placed) {
		Map<String, GroupAssignment> assignments = new TreeMap<>();
		if (placed != null) {
			for (Document d : placed) {
				String group = d.getString("g");
				Number count = d.get("n", Number.class);
				List<@Nullable String> owners = d.getList("o", String.class);
				if (group != null && count != null && owners != null && owners.size() == count.intValue()
						&& count.intValue() > 0) {
					Date paused = d.getDate("u");
					assignments.put(group, new GroupAssignment(count.intValue(), owners, d.getList("p", String.class),
							(paused != null) ? paused.toInstant() : null));
				}
			}
		}
		return assignments;
	}

	static List<Document> changesToDocuments(List<PlacementChange> changes) {
		List<Document> placed = new ArrayList<>(changes.size());
		for (PlacementChange c : changes) {
			Document d = new Document("g", c.group()).append("n", c.partitions())
				.append("i", c.moved())
				.append("o", c.owners());
			if (c.pins().stream().anyMatch(Objects::nonNull)) {
				d.append("p", c.pins());
			}
			if (c.pausedUntil() != null) {
				d.append("u", Date.from(c.pausedUntil()));
			}
			placed.add(d);
		}
		return placed;
	}

	/**
	 * The placement changes of a roster change; null when it has none recorded (or not as
	 * this code writes them).
	 */
	static @Nullable List<PlacementChange> toChanges(@Nullable List<Document> placed) {
		if (placed == null) {
			return null;
		}
		List<PlacementChange> changes = new ArrayList<>(placed.size());
		try {
			for (Document d : placed) {
				String group = d.getString("g");
				Number count = d.get("n", Number.class);
				List<Integer> moved = numbers(d.getList("i", Object.class));
				List<@Nullable String> owners = d.getList("o", String.class);
				List<@Nullable String> pins = d.containsKey("p") ? d.getList("p", String.class)
						: (moved != null) ? Collections.nCopies(moved.size(), null) : null;
				if (group == null || count == null || moved == null || owners == null || pins == null) {
					return null; // then the member reads the whole roster
				}
				Date paused = d.getDate("u");
				changes.add(new PlacementChange(group, count.intValue(), moved, owners, pins,
						(paused != null) ? paused.toInstant() : null));
			}
		}
		catch (ClassCastException | IllegalArgumentException | NullPointerException ex) {
			// not as this code writes them: the member reads the whole roster rather than
			// fail its read
			return null;
		}
		return changes;
	}

	private static @Nullable List<Integer> numbers(@Nullable List<Object> values) {
		if (values == null) {
			return null;
		}
		List<Integer> numbers = new ArrayList<>(values.size());
		for (Object value : values) {
			if (!(value instanceof Number number)) {
				return null;
			}
			numbers.add(number.intValue());
		}
		return numbers;
	}

	static List<Document> countsToDocuments(Map<String, Integer> counts) {
		List<Document> entries = new ArrayList<>(counts.size());
		new TreeMap<>(counts).forEach((group, count) -> entries.add(new Document("g", group).append("n", count)));
		return entries;
	}

	static Map<String, Integer> counts(@Nullable List<Document> entries) {
		Map<String, Integer> counts = new TreeMap<>();
		if (entries != null) {
			for (Document d : entries) {
				String group = d.getString("g");
				Number count = d.get("n", Number.class);
				if (group != null && count != null) {
					counts.put(group, count.intValue());
				}
			}
		}
		return counts;
	}

}
