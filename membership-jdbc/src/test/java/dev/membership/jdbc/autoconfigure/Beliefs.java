package dev.membership.jdbc.autoconfigure;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.membership.spi.LeadershipObserver;

/**
 * Every belief of the nodes in this JVM, as their engines start and end them, on one
 * clock.
 */
final class Beliefs implements LeadershipObserver {

	private record Interval(String node, String unit, long start, long end) {
	}

	private final Map<String, Interval> open = new HashMap<>();

	private final List<Interval> closed = new ArrayList<>();

	@Override
	public synchronized void started(String nodeId, String group, long epoch, long atNanos) {
		this.open.put(nodeId + "/" + group, new Interval(nodeId, group, atNanos, Long.MAX_VALUE));
	}

	@Override
	public synchronized void ended(String nodeId, String group, long epoch, long atNanos) {
		Interval interval = this.open.remove(nodeId + "/" + group);
		if (interval != null) {
			this.closed.add(new Interval(nodeId, group, interval.start(), atNanos));
		}
	}

	synchronized int count() {
		return this.closed.size() + this.open.size();
	}

	/** When the latest belief that ended, ended ({@code Long.MIN_VALUE}: none did). */
	synchronized long lastEndNanos() {
		return this.closed.stream().mapToLong(Interval::end).max().orElse(Long.MIN_VALUE);
	}

	/** Beliefs in one unit that overlapped another's in time. */
	synchronized int overlaps() {
		Map<String, List<Interval>> byUnit = new HashMap<>();
		this.closed.forEach((i) -> byUnit.computeIfAbsent(i.unit(), (k) -> new ArrayList<>()).add(i));
		this.open.values().forEach((i) -> byUnit.computeIfAbsent(i.unit(), (k) -> new ArrayList<>()).add(i));
		int overlaps = 0;
		for (List<Interval> intervals : byUnit.values()) {
			intervals.sort(Comparator.comparingLong(Interval::start));
			long lastEnd = Long.MIN_VALUE;
			for (Interval interval : intervals) {
				if (interval.start() < lastEnd) {
					overlaps++;
				}
				lastEnd = Math.max(lastEnd, interval.end());
			}
		}
		return overlaps;
	}

}
