package dev.membership.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;

import dev.membership.Membership;
import dev.membership.leadership.ReactiveLeaderContext;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.LeaderOnlyExecutionListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reactive {@code @Scheduled} {@code @LeaderOnly} method: Spring subscribes to what it
 * returns, and the guard applies to each subscription, so it never runs while the node
 * does not lead.
 */
@SpringBootTest(properties = "membership.groups=reports")
@AutoConfigureMembershipTest
@DirtiesContext
class ReactiveScheduledLeaderOnlyTests {

	@Autowired
	SimulatedCluster cluster;

	@Autowired
	Housekeeping housekeeping;

	@Autowired
	Skips skips;

	@Test
	void runsOnlyWhileLeadingAndWithItsTerm() {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.housekeeping.runs().contains("epoch 1, leading"));
		this.cluster.revoke("reports");
		int skipped = this.skips.count.get();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.skips.count.get() > skipped + 2);
		long epoch = this.cluster.elect("reports").epoch();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.housekeeping.runs().contains("epoch " + epoch + ", leading"));
		assertThat(this.housekeeping.runs()).allMatch((run) -> run.endsWith(", leading"));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableScheduling
	@Import(Housekeeping.class)
	static class Application {

		@Bean
		Skips skips() {
			return new Skips();
		}

	}

	@Component
	static class Housekeeping {

		private final List<String> runs = new CopyOnWriteArrayList<>();

		private final Membership membership;

		Housekeeping(Membership membership) {
			this.membership = membership;
		}

		public List<String> runs() {
			return this.runs;
		}

		@Scheduled(fixedDelay = 10)
		@LeaderOnly(group = "reports")
		public Mono<Void> purge() {
			return ReactiveLeaderContext.currentTerm()
				.doOnNext((term) -> this.runs.add("epoch " + term.epoch() + ", "
						+ (this.membership.isLeader("reports") ? "leading" : "NOT leading")))
				.then();
		}

	}

	static class Skips implements LeaderOnlyExecutionListener {

		final AtomicInteger count = new AtomicInteger();

		@Override
		public void executed(String group, String method) {
		}

		@Override
		public void skipped(String group, String method) {
			this.count.incrementAndGet();
		}

	}

}
