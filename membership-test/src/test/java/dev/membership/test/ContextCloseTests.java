package dev.membership.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.scheduling.LeaderOnly;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a test's context while leader-only work still runs: the drain waits for it in
 * real time up to its timeout, then the node hands over as production would, although
 * virtual time stands still.
 */
class ContextCloseTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MembershipTestAutoConfiguration.class,
				MembershipAutoConfiguration.class, LeaderOnlyAutoConfiguration.class))
		.withUserConfiguration(Jobs.class)
		.withPropertyValues("membership.shutdown.drain-timeout=1s");

	@Test
	void aJobThatOutlastsTheDrainTimeoutDoesNotHoldTheCloseBeyondIt() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		try {
			this.runner.run((context) -> {
				Job job = context.getBean(Job.class);
				Recorder recorder = context.getBean(Recorder.class);
				CompletableFuture<Boolean> running = CompletableFuture.supplyAsync(() -> job.holdUntil(release));
				assertThat(job.awaitStarted()).isTrue();
				long start = System.nanoTime();
				context.close();
				Duration closing = Duration.ofNanos(System.nanoTime() - start);
				// the drain waited its full second for the job, and the close went on
				// soon after
				assertThat(closing).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(5));
				assertThat(recorder.events).filteredOn(LeaderRevokedEvent.class::isInstance)
					.extracting((event) -> ((LeaderRevokedEvent) event).reason())
					.containsExactly(RevocationReason.SHUTDOWN);
				// left behind after the drain timeout, as in production
				assertThat(running).isNotDone();
			});
		}
		finally {
			release.countDown();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		Job job() {
			return new Job();
		}

		@Bean
		Recorder recorder() {
			return new Recorder();
		}

	}

	public static class Job {

		private final CountDownLatch started = new CountDownLatch(1);

		public boolean awaitStarted() throws InterruptedException {
			return this.started.await(10, TimeUnit.SECONDS);
		}

		/**
		 * Not to be interrupted: holds the hand-over until released or the drain timeout
		 * passes.
		 */
		@LeaderOnly
		public boolean holdUntil(CountDownLatch release) {
			this.started.countDown();
			try {
				return release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}

	}

	static class Recorder implements MembershipEventListener {

		final List<MembershipEvent> events = new CopyOnWriteArrayList<>();

		@Override
		public void onEvent(MembershipEvent event) {
			this.events.add(event);
		}

	}

}
