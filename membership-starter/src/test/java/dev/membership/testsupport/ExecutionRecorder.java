package dev.membership.testsupport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.testsupport.LeadershipRecorder.Interval;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Records when leader-only work actually ran on each node (its first and last
 * instruction, on this JVM's one monotonic clock), beside {@link LeadershipRecorder}'s
 * beliefs, so that tests can assert that work of one group never ran on two nodes at
 * once, and that it ran only while its node believed it led.
 */
public final class ExecutionRecorder {

	public record Execution(String nodeId, String group, long epoch, long startNanos, long endNanos) {

		boolean overlaps(Execution other) {
			return this.startNanos < other.endNanos && other.startNanos < this.endNanos;
		}

		public boolean isRunning() {
			return this.endNanos == Long.MAX_VALUE;
		}

	}

	private final List<Execution> executions = new ArrayList<>();

	/**
	 * Runs {@code work} as leader-only work of {@code nodeId} under {@code term},
	 * recording its start and end.
	 */
	public void run(String nodeId, LeadershipTerm term, Runnable work) {
		Execution started = new Execution(nodeId, term.group(), term.epoch(), System.nanoTime(), Long.MAX_VALUE);
		synchronized (this) {
			this.executions.add(started);
		}
		try {
			work.run();
		}
		finally {
			long end = System.nanoTime();
			synchronized (this) {
				this.executions.set(this.executions.indexOf(started),
						new Execution(nodeId, started.group(), started.epoch(), started.startNanos(), end));
			}
		}
	}

	public synchronized List<Execution> executions() {
		List<Execution> all = new ArrayList<>(this.executions);
		all.sort(Comparator.comparingLong(Execution::startNanos));
		return all;
	}

	public synchronized List<Execution> of(String nodeId) {
		return executions().stream().filter((e) -> e.nodeId().equals(nodeId)).toList();
	}

	public boolean isRunning(String nodeId) {
		return of(nodeId).stream().anyMatch(Execution::isRunning);
	}

	public Optional<Execution> last(String nodeId) {
		List<Execution> mine = of(nodeId);
		return mine.isEmpty() ? Optional.empty() : Optional.of(mine.get(mine.size() - 1));
	}

	/**
	 * Pairs of executions of one group on two different nodes that ran at the same time.
	 */
	public List<List<Execution>> overlaps() {
		List<Execution> all = executions();
		List<List<Execution>> overlaps = new ArrayList<>();
		for (int i = 0; i < all.size(); i++) {
			for (int j = i + 1; j < all.size(); j++) {
				Execution a = all.get(i);
				Execution b = all.get(j);
				if (a.group().equals(b.group()) && !a.nodeId().equals(b.nodeId()) && a.overlaps(b)) {
					overlaps.add(List.of(a, b));
				}
			}
		}
		return overlaps;
	}

	public void assertNoOverlap() {
		assertThat(overlaps()).as("leader-only executions of one group on two nodes at once").isEmpty();
	}

	/**
	 * Every finished execution lay inside a belief of its node under its epoch: work ran
	 * only while its node led. Holds for graceful stops and resigns; after a pause, only
	 * fencing protects the data.
	 */
	public void assertWithinBeliefs(LeadershipRecorder beliefs) {
		List<Interval> intervals = beliefs.intervals();
		for (Execution execution : executions()) {
			if (execution.isRunning()) {
				continue;
			}
			assertThat(intervals)
				.as("a belief of %s in epoch %d around %s", execution.nodeId(), execution.epoch(), execution)
				.anyMatch((belief) -> belief.nodeId().equals(execution.nodeId())
						&& belief.group().equals(execution.group()) && belief.epoch() == execution.epoch()
						&& belief.startNanos() <= execution.startNanos() && execution.endNanos() <= belief.endNanos());
		}
	}

}
