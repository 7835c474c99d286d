package dev.membership.bench.guard;

import java.util.concurrent.atomic.AtomicLong;

import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import dev.membership.scheduling.LeaderOnly;

/** The same trivial method behind each guard: it only counts that it ran. */
public final class GuardedJobs {

	private GuardedJobs() {
	}

	public static class Plain {

		final AtomicLong runs = new AtomicLong();

		public void run() {
			this.runs.incrementAndGet();
		}

	}

	public static class WithLeaderOnly {

		final AtomicLong runs = new AtomicLong();

		@LeaderOnly
		public void run() {
			this.runs.incrementAndGet();
		}

	}

	public static class WithSchedulerLock {

		final AtomicLong runs = new AtomicLong();

		@SchedulerLock(name = "bench-job", lockAtMostFor = "PT30S")
		public void run() {
			this.runs.incrementAndGet();
		}

	}

}
