package dev.membership.bench.support;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.membership.spi.LeadershipObserver;

/**
 * Every belief of every node in this JVM (a group's leadership, a partition's ownership),
 * as its node's engine starts and ends it, on one clock: what tells whether two nodes
 * ever believed in one unit at the same instant. Sampling the nodes one after another
 * cannot: a hand-over between two reads shows as two owners.
 */
public final class BeliefIntervals implements LeadershipObserver {

	private record Interval(String nodeId, String unit, long epoch, long startNanos, long endNanos) {
	}

	private final Map<String, Interval> open = new HashMap<>();

	private final List<Interval> closed = new ArrayList<>();

	@Override
	public synchronized void started(String nodeId, String group, long epoch, long atNanos) {
		this.open.put(nodeId + "/" + group, new Interval(nodeId, group, epoch, atNanos, Long.MAX_VALUE));
	}

	@Override
	public synchronized void ended(String nodeId, String group, long epoch, long atNanos) {
		Interval interval = this.open.remove(nodeId + "/" + group);
		if (interval != null) {
			this.closed.add(new Interval(nodeId, group, interval.epoch(), interval.startNanos(), atNanos));
		}
	}

	/**
	 * Pairs of beliefs in one unit that overlapped in time (a node that halted keeps its
	 * belief open).
	 */
	public synchronized int overlaps() {
		Map<String, List<Interval>> byUnit = new HashMap<>();
		this.closed.forEach((i) -> byUnit.computeIfAbsent(i.unit(), (k) -> new ArrayList<>()).add(i));
		this.open.values().forEach((i) -> byUnit.computeIfAbsent(i.unit(), (k) -> new ArrayList<>()).add(i));
		int overlaps = 0;
		for (List<Interval> list : byUnit.values()) {
			list.sort(Comparator.comparingLong(Interval::startNanos));
			long lastEnd = Long.MIN_VALUE;
			for (Interval interval : list) {
				if (interval.startNanos() < lastEnd) {
					overlaps++;
				}
				lastEnd = Math.max(lastEnd, interval.endNanos());
			}
		}
		return overlaps;
	}

	/**
	 * For each belief of {@code nodeId} that ended at or after {@code sinceNanos}, in
	 * milliseconds: the time from its end until another node began to believe in that
	 * unit (a unit nobody took since is left out). After a graceful stop, the node's
	 * beliefs end once their drains are over: this is how long its partitions went
	 * without an owner.
	 */
	public synchronized List<Double> handOffMillis(String nodeId, long sinceNanos) {
		return gapsMillis(nodeId, sinceNanos, false);
	}

	/**
	 * As {@link #handOffMillis}, but the next belief may be another process's with the
	 * same node id too (a restart under its id): how long each of its units went without
	 * an owner.
	 */
	public synchronized List<Double> unownedMillis(String nodeId, long sinceNanos) {
		return gapsMillis(nodeId, sinceNanos, true);
	}

	private List<Double> gapsMillis(String nodeId, long sinceNanos, boolean itselfToo) {
		List<Interval> all = new ArrayList<>(this.closed);
		all.addAll(this.open.values());
		List<Double> gaps = new ArrayList<>();
		for (Interval ended : this.closed) {
			if (!ended.nodeId().equals(nodeId) || ended.endNanos() < sinceNanos) {
				continue;
			}
			all.stream()
				.filter((i) -> i.unit().equals(ended.unit()) && (itselfToo || !i.nodeId().equals(nodeId))
						&& i.startNanos() >= (itselfToo ? ended.endNanos() : ended.startNanos()))
				.mapToLong(Interval::startNanos)
				.min()
				.ifPresent((next) -> gaps.add((next - ended.endNanos()) / 1e6));
		}
		return gaps;
	}

	/**
	 * A halted node is a dead process here: whatever it believed ends with it, at
	 * {@code atNanos}.
	 */
	public synchronized void halted(String nodeId, long atNanos) {
		this.open.entrySet().removeIf((e) -> {
			if (!e.getValue().nodeId().equals(nodeId)) {
				return false;
			}
			Interval i = e.getValue();
			this.closed.add(new Interval(nodeId, i.unit(), i.epoch(), i.startNanos(), atNanos));
			return true;
		});
	}

	public synchronized void clear() {
		this.open.clear();
		this.closed.clear();
	}

}
