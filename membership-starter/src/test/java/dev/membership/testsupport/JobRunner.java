package dev.membership.testsupport;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.membership.spi.WorkRegistry;
import dev.membership.Membership;
import dev.membership.leadership.LeadershipTerm;

/**
 * A node's scheduler for a leader-only job, as Spring's {@code @Scheduled(fixedDelay)}
 * would run it: every few milliseconds, it tries the job; on the leader the job works for
 * {@code work} (not interruptible unless asked), recorded by an
 * {@link ExecutionRecorder}.
 */
public final class JobRunner implements AutoCloseable {

	private static final long FIXED_DELAY_MILLIS = 5;

	private final ScheduledExecutorService scheduler;

	private JobRunner(Membership node, String group, Duration work, boolean interruptible, ExecutionRecorder recorder) {
		this.scheduler = Executors.newSingleThreadScheduledExecutor((r) -> {
			Thread thread = new Thread(r, "job-" + node.nodeId());
			thread.setDaemon(true);
			return thread;
		});
		this.scheduler.scheduleWithFixedDelay(() -> {
			LeadershipTerm.Execution execution = ((WorkRegistry) node).tryBegin(group, "job", interruptible);
			if (execution == null) {
				return;
			}
			try (execution) {
				recorder.run(node.nodeId(), execution.term(), () -> work(work));
			}
		}, 0, FIXED_DELAY_MILLIS, TimeUnit.MILLISECONDS);
	}

	public static JobRunner start(Membership node, String group, Duration work, boolean interruptible,
			ExecutionRecorder recorder) {
		return new JobRunner(node, group, work, interruptible, recorder);
	}

	/** The job's work: it takes this long unless interrupted. */
	private static void work(Duration work) {
		try {
			Thread.sleep(work.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.scheduler.shutdownNow();
	}

}
