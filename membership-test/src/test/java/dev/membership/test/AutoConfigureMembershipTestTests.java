package dev.membership.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;
import org.springframework.test.annotation.DirtiesContext;

import dev.membership.Membership;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.scheduling.LeaderOnly;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring Boot test of an application's {@code @LeaderOnly} job, with no MongoDB on the
 * classpath: what a user writes, against the public test API only.
 */
@SpringBootTest(properties = "membership.groups=reports")
@AutoConfigureMembershipTest
@DirtiesContext
class AutoConfigureMembershipTestTests {

	@Autowired
	SimulatedCluster cluster;

	@Autowired
	ReportJob job;

	@Autowired
	LeadershipLog leadershipLog;

	@Autowired
	Membership membership;

	@Test
	void theJobRunsWhenLeadingWithItsEpochIsSkippedWhenNotAndIsInterruptedOnRevoke() throws Exception {
		// the node starts alone and leads
		assertThat(this.job.run()).isEqualTo("ran under epoch 1");

		this.cluster.revoke("reports");
		assertThat(this.job.run()).isNull();
		assertThat(this.leadershipLog.events).contains("revoked reports RESIGNED");

		LeadershipTerm term = this.cluster.elect("reports");
		assertThat(this.job.run()).isEqualTo("ran under epoch " + term.epoch());

		CompletableFuture<Boolean> running = CompletableFuture.supplyAsync(this.job::runUntilInterrupted);
		assertThat(this.job.awaitStarted()).isTrue();
		// the drain interrupts it, and waits for it to end before the release
		this.cluster.revoke("reports");
		assertThat(running).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(true);

		this.cluster.elect("reports");
		this.cluster.revoke("reports", RevocationReason.LEASE_LOST);
		assertThat(this.job.run()).isNull();
		assertThat(this.leadershipLog.events).containsSubsequence("elected reports", "revoked reports RESIGNED",
				"elected reports", "revoked reports RESIGNED", "elected reports", "revoked reports LEASE_LOST");
	}

	@Test
	void theClusterAroundTheNodeIsSimulated() {
		this.cluster.addMember("node-b");
		assertThat(this.membership.liveMembers()).hasSize(2);
		assertThat(this.cluster.electOther("default", "node-b").nodeId()).isEqualTo("node-b");
		assertThat(this.membership.isLeader("default")).isFalse();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import({ ReportJob.class, LeadershipLog.class })
	static class Application {

	}

	@Component
	static class ReportJob {

		private final CountDownLatch started = new CountDownLatch(1);

		public boolean awaitStarted() throws InterruptedException {
			return this.started.await(10, TimeUnit.SECONDS);
		}

		@LeaderOnly(group = "reports")
		public String run() {
			return "ran under epoch " + LeaderContext.currentTerm().epoch();
		}

		@LeaderOnly(group = "reports", interruptOnRevoke = true)
		public boolean runUntilInterrupted() {
			this.started.countDown();
			try {
				new CountDownLatch(1).await(30, TimeUnit.SECONDS);
				return false;
			}
			catch (InterruptedException ex) {
				return true;
			}
		}

	}

	@Component
	static class LeadershipLog {

		final List<String> events = new CopyOnWriteArrayList<>();

		@EventListener
		void elected(LeaderElectedEvent event) {
			this.events.add("elected " + event.group());
		}

		@EventListener
		void revoked(LeaderRevokedEvent event) {
			this.events.add("revoked " + event.group() + " " + event.reason());
		}

	}

}
