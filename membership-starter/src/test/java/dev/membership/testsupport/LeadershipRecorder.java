package dev.membership.testsupport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.membership.spi.LeadershipObserver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records every node's leadership beliefs on this JVM's one monotonic clock, so that
 * tests can assert that no two beliefs in one group ever overlapped and that epochs only
 * grew.
 */
public final class LeadershipRecorder implements LeadershipObserver {

	public record Interval(String nodeId, String group, long epoch, long startNanos, long endNanos) {
	}

	private final Map<String, Interval> open = new HashMap<>();

	private final List<Interval> closed = new ArrayList<>();

	private final List<String> problems = new ArrayList<>();

	@Override
	public synchronized void started(String nodeId, String group, long epoch, long atNanos) {
		String key = nodeId + "|" + group;
		if (this.open.containsKey(key)) {
			// never throw into the node under test; report it from assertSafe()
			this.problems.add(nodeId + " started leading " + group + " twice without ending");
		}
		this.open.put(key, new Interval(nodeId, group, epoch, atNanos, Long.MAX_VALUE));
	}

	@Override
	public synchronized void ended(String nodeId, String group, long epoch, long atNanos) {
		Interval started = this.open.remove(nodeId + "|" + group);
		if (started != null) {
			this.closed.add(new Interval(nodeId, group, started.epoch(), started.startNanos(), atNanos));
		}
	}

	/** Every interval so far; open ones end at Long.MAX_VALUE. */
	public synchronized List<Interval> intervals() {
		List<Interval> all = new ArrayList<>(this.closed);
		all.addAll(this.open.values());
		all.sort(Comparator.comparingLong(Interval::startNanos));
		return all;
	}

	public synchronized int transitions() {
		return this.closed.size() * 2 + this.open.size();
	}

	/**
	 * Fails if two nodes believed they led the same group at the same instant, or an
	 * epoch did not grow.
	 */
	public void assertSafe() {
		synchronized (this) {
			assertThat(this.problems).isEmpty();
		}
		assertSafe(intervals());
	}

	public static void assertSafe(List<Interval> intervals) {
		Map<String, List<Interval>> byGroup = intervals.stream().collect(Collectors.groupingBy(Interval::group));
		byGroup.forEach((group, list) -> {
			list.sort(Comparator.comparingLong(Interval::startNanos));
			for (int i = 1; i < list.size(); i++) {
				Interval before = list.get(i - 1);
				Interval after = list.get(i);
				assertThat(after.startNanos())
					.as("group %s: %s began leading %.3f ms before %s stopped", group, after.nodeId(),
							(before.endNanos() - after.startNanos()) / 1e6, before.nodeId())
					.isGreaterThanOrEqualTo(before.endNanos());
				assertThat(after.epoch()).as("group %s: epoch of %s after %s", group, after, before)
					.isGreaterThan(before.epoch());
			}
		});
	}

}
