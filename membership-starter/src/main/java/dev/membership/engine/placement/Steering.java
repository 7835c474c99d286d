package dev.membership.engine.placement;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;

/**
 * An operator's steering of the coordinator's placement: a partition moved to a node
 * (once, or pinned there), a pin taken off, rebalancing paused or resumed. Directives
 * wait here, on the coordinator, until a roster written with them (or one they change
 * nothing in) takes them; pins and a pause then live in the roster's placement, so that a
 * new coordinator keeps them. A coordinator that loses its role before it wrote them
 * drops them: the operator asks the next one. Decisions only; no store calls.
 */
public final class Steering {

	public sealed interface Directive permits Move, Unpin, Pause, Resume {

	}

	/**
	 * Put {@code partition} of {@code group} on {@code to}; with {@code pin}, keep it
	 * there until unpinned, without, take off a pin it had (the placement may move it on
	 * later, to balance the group).
	 */
	public record Move(String group, int partition, String to, boolean pin) implements Directive {
	}

	public record Unpin(String group, int partition) implements Directive {
	}

	/** Move only departed members' units until {@code until}. */
	public record Pause(Instant until) implements Directive {
	}

	public record Resume() implements Directive {
	}

	/** A directive as the coordinator took it, under its term of the default group. */
	private record Taken(long epoch, Directive directive) {
	}

	private final List<Taken> pending = new CopyOnWriteArrayList<>();

	/**
	 * Takes {@code directive} for the coordinator's term {@code epoch}: a later term of
	 * this node never applies it.
	 */
	public void add(long epoch, Directive directive) {
		this.pending.add(new Taken(epoch, directive));
	}

	/**
	 * What waits for the coordinator's term {@code epoch}, in order: the directives its
	 * next placement applies. Those of an earlier term are dropped (the node lost the
	 * role before it wrote them: stale now).
	 */
	public List<Directive> pending(long epoch) {
		this.pending.removeIf((taken) -> taken.epoch() != epoch);
		return this.pending.stream().map(Taken::directive).toList();
	}

	/**
	 * The placement that took {@code directives} was written (or they changed nothing):
	 * they are done.
	 */
	public void done(List<Directive> directives) {
		for (Directive directive : directives) {
			this.pending.stream()
				.filter((taken) -> taken.directive() == directive)
				.findFirst()
				.ifPresent(this.pending::remove);
		}
	}

	/**
	 * The policy's {@code placed}, as pins, a pause and {@code directives} steer it: a
	 * pause keeps each unit on its {@code previous} owner while that one still takes
	 * part; a move puts its unit on its node; a pin keeps its unit on its node while that
	 * one is live and takes part. Pins and the pause (until it ends at {@code now}) are
	 * carried in the result.
	 */
	public static Map<String, GroupAssignment> steer(Map<String, GroupAssignment> placed,
			Map<String, GroupAssignment> previous, List<Directive> directives, List<Member> members, Instant now) {
		return steer(placed, previous, directives, members, now, 100);
	}

	/**
	 * As {@link #steer(Map, Map, List, List, Instant)}, and a rebalance moves at most
	 * {@code maxMovesPercent} of a partitioned group's partitions (at least one) away
	 * from owners that still take part; the others stay where they were until a later
	 * interval. Units of departed owners and operators' moves and pins are never held
	 * back.
	 */
	public static Map<String, GroupAssignment> steer(Map<String, GroupAssignment> placed,
			Map<String, GroupAssignment> previous, List<Directive> directives, List<Member> members, Instant now,
			int maxMovesPercent) {
		Instant paused = previous.values()
			.stream()
			.map(GroupAssignment::pausedUntil)
			.filter((until) -> until != null)
			.max(Instant::compareTo)
			.orElse(null);
		Map<String, List<@Nullable String>> pins = new TreeMap<>();
		placed.forEach((group, assignment) -> {
			GroupAssignment before = previous.get(group);
			pins.put(group,
					(before != null && before.partitions() == assignment.partitions()) ? new ArrayList<>(before.pins())
							: new ArrayList<>(Collections.nCopies(assignment.partitions(), null)));
		});
		Map<String, List<@Nullable String>> moves = new TreeMap<>();
		for (Directive directive : directives) {
			if (directive instanceof Pause pause) {
				paused = pause.until();
			}
			else if (directive instanceof Resume) {
				paused = null;
			}
			else if (directive instanceof Move move && placed.containsKey(move.group())) {
				set(moves, placed, move.group(), move.partition(), move.to());
				// unpinned
				set(pins, placed, move.group(), move.partition(), move.pin() ? move.to() : null);
			}
			else if (directive instanceof Unpin unpin && placed.containsKey(unpin.group())) {
				set(pins, placed, unpin.group(), unpin.partition(), null);
			}
		}
		Instant pausedUntil = (paused != null && now.isBefore(paused)) ? paused : null;
		Map<String, GroupAssignment> steered = new TreeMap<>();
		placed.forEach((group, assignment) -> {
			int count = assignment.partitions();
			GroupAssignment before = previous.get(group);
			boolean sameCount = before != null && before.partitions() == count;
			List<@Nullable String> owners = new ArrayList<>(assignment.owners());
			List<@Nullable String> groupPins = pins.get(group);
			List<@Nullable String> groupMoves = moves.get(group);
			Set<String> takingPart = takingPart(members, group, count);
			int limit = (count == 1 || maxMovesPercent >= 100) ? Integer.MAX_VALUE
					: Math.max(1, (count * maxMovesPercent + 99) / 100);
			int rebalanced = 0;
			for (int p = 0; p < count; p++) {
				String was = sameCount ? before.owner(p) : null;
				if (pausedUntil != null && takingPart.contains(was)) {
					owners.set(p, was);
				}
				String moved = (groupMoves != null) ? groupMoves.get(p) : null;
				if (takingPart.contains(moved)) {
					owners.set(p, moved);
				}
				if (takingPart.contains(groupPins.get(p))) {
					owners.set(p, groupPins.get(p));
				}
				else if (moved != null && takingPart.contains(moved)) {
					continue; // an operator's move
				}
				else if (was != null && owners.get(p) != null && !was.equals(owners.get(p)) && takingPart.contains(was)
						&& ++rebalanced > limit) {
					owners.set(p, was); // a rebalance held back for a later interval
				}
			}
			steered.put(group, new GroupAssignment(count, owners, groupPins, pausedUntil));
		});
		return steered;
	}

	private static void set(Map<String, List<@Nullable String>> byGroup, Map<String, GroupAssignment> placed,
			String group, int partition, @Nullable String node) {
		int count = placed.get(group).partitions();
		if (partition < 0 || partition >= count) {
			return;
		}
		byGroup.computeIfAbsent(group, (g) -> new ArrayList<>(Collections.nCopies(count, null))).set(partition, node);
	}

	/**
	 * The live members that take part in {@code group} with {@code count} partitions:
	 * once a group, not per unit.
	 */
	private static Set<String> takingPart(List<Member> members, String group, int count) {
		Set<String> taking = new HashSet<>();
		for (Member m : members) {
			if (m.live() && Assignments.takesPart(m, group, count)) {
				taking.add(m.nodeId());
			}
		}
		return taking;
	}

}
