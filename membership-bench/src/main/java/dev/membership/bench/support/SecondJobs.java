package dev.membership.bench.support;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Jobs of one node that fire on every whole second, as a cron schedule does, give or take
 * the node's jitter.
 */
public final class SecondJobs {

	private SecondJobs() {
	}

	/**
	 * Fires {@code job} with each id in 0..{@code jobs}-1 every second; shut the
	 * scheduler down to stop them.
	 */
	public static ScheduledExecutorService schedule(int jobs, IntConsumer job) {
		long jitter = ThreadLocalRandom.current().nextLong(20);
		long untilNextSecond = 1000 - System.currentTimeMillis() % 1000;
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((r) -> {
			Thread t = new Thread(r, "bench-jobs");
			t.setDaemon(true);
			return t;
		});
		for (int j = 0; j < jobs; j++) {
			int id = j;
			scheduler.scheduleAtFixedRate(() -> {
				try {
					job.accept(id);
				}
				catch (RuntimeException ex) {
					// a job failure is the job's business; the next second tries again
				}
			}, untilNextSecond + jitter, 1000, TimeUnit.MILLISECONDS);
		}
		return scheduler;
	}

}
