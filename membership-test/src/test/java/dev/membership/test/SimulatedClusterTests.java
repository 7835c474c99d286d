package dev.membership.test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.membership.leadership.LeaderChangedEvent;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.liveness.MemberJoinedEvent;
import dev.membership.liveness.MemberLeftEvent;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.MembershipSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The simulated cluster through its public API only, as a user's plain JUnit test would
 * use it.
 */
class SimulatedClusterTests {

	private final SimulatedCluster cluster = SimulatedCluster
		.start(MembershipSettings.builder("node-a").groups(Set.of("reports")).build());

	@AfterEach
	void close() {
		this.cluster.close();
	}

	@Test
	void theNodeStartsAloneAndLeadsItsGroups() {
		assertThat(this.cluster.node().isLeader("default")).isTrue();
		assertThat(this.cluster.node().isLeader("reports")).isTrue();
		assertThat(this.cluster.events(LeaderElectedEvent.class)).extracting(LeaderElectedEvent::group)
			.containsExactlyInAnyOrder("default", "reports");
	}

	@Test
	void timeStandsStillUntilTheTestMovesIt() {
		long epoch = this.cluster.node().currentTerm("reports").orElseThrow().epoch();
		this.cluster.advance(Duration.ofHours(1));
		assertThat(this.cluster.elapsed()).isEqualTo(Duration.ofHours(1));
		assertThat(this.cluster.node().currentTerm("reports").orElseThrow().epoch()).isEqualTo(epoch);
		assertThat(this.cluster.events(LeaderRevokedEvent.class)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(value = RevocationReason.class, names = { "RESIGNED", "LEASE_LOST", "RENEWAL_DEADLINE_PASSED" })
	void aRevocationGoesThroughWhatCausesItAndAPeerTakesOver(RevocationReason reason) {
		long epoch = this.cluster.node().currentTerm("reports").orElseThrow().epoch();
		this.cluster.revoke("reports", reason);
		assertThat(this.cluster.node().isLeader("reports")).isFalse();
		assertThat(this.cluster.events(LeaderRevokedEvent.class))
			.contains(new LeaderRevokedEvent("node-a", "reports", epoch, reason));
		assertThat(this.cluster.node().leader("reports").orElseThrow().nodeId())
			.isEqualTo(SimulatedCluster.DEFAULT_PEER);
		// the follower stays one: a test can assert what happens when not leading
		this.cluster.advance(Duration.ofMinutes(5));
		assertThat(this.cluster.node().isLeader("reports")).isFalse();
		LeadershipTerm again = this.cluster.elect("reports");
		assertThat(again.epoch()).isGreaterThan(epoch + 1);
		assertThat(this.cluster.node().isLeader("reports")).isTrue();
	}

	@Test
	void anotherNodeLeadsAndTheNodeSeesTheChange() {
		assertThat(this.cluster.electOther("reports", "node-b").nodeId()).isEqualTo("node-b");
		assertThat(this.cluster.node().isLeader("reports")).isFalse();
		assertThat(this.cluster.events(LeaderChangedEvent.class)).last()
			.satisfies((changed) -> assertThat(changed.group()).isEqualTo("reports"));
		this.cluster.electOther("reports", "node-c");
		assertThat(this.cluster.node().leader("reports").orElseThrow().nodeId()).isEqualTo("node-c");
		assertThat(this.cluster.elect("reports").epoch()).isEqualTo(4);
		assertThat(this.cluster.events(LeaderElectedEvent.class)).extracting(LeaderElectedEvent::epoch)
			.containsExactly(1L, 1L, 4L);
	}

	@Test
	void theNodeTakesBackAGroupThatPeersTookInTurn() {
		this.cluster.electOther("reports", "node-b");
		this.cluster.electOther("reports", "node-c");
		// node-b, which resigned last but one, must not get in the way
		assertThat(this.cluster.elect("reports").epoch()).isEqualTo(4);
		this.cluster.electOther("reports", "node-b");
		assertThat(this.cluster.node().leader("reports").orElseThrow().nodeId()).isEqualTo("node-b");
	}

	@Test
	void membersJoinAndLeave() {
		assertThat(this.cluster.addMember("node-b").live()).isTrue();
		this.cluster.addMember("node-c");
		assertThat(this.cluster.node().liveMembers()).extracting("nodeId")
			.containsExactlyInAnyOrder("node-a", "node-b", "node-c");
		this.cluster.removeMember("node-b");
		this.cluster.crashMember("node-c");
		assertThat(this.cluster.node().liveMembers()).extracting("nodeId").containsExactly("node-a");
		assertThat(this.cluster.events(MemberJoinedEvent.class)).extracting((e) -> e.member().nodeId())
			.contains("node-b", "node-c");
		assertThat(this.cluster.events(MemberLeftEvent.class)).extracting((e) -> e.member().nodeId())
			.containsExactly("node-b", "node-c");
	}

	@Test
	void leaderOnlyRunsWhenLeadingWithItsEpochAndIsSkippedOtherwise() {
		Reports target = new Reports();
		Reports reports = this.cluster.leaderOnly(target);
		assertThat(reports.generate()).isTrue();
		this.cluster.revoke("reports");
		assertThat(reports.generate()).isFalse();
		long epoch = this.cluster.elect("reports").epoch();
		assertThat(reports.generate()).isTrue();
		assertThat(target.epochs).containsExactly(1L, epoch);
	}

	@Test
	void leaderOnlyWorkIsInterruptedOnRevokeAndTheHandOverWaitsForIt() throws Exception {
		Reports target = new Reports();
		Reports reports = this.cluster.leaderOnly(target);
		CompletableFuture<Boolean> run = CompletableFuture.supplyAsync(reports::waitUntilInterrupted);
		assertThat(target.started.await(10, TimeUnit.SECONDS)).isTrue();
		this.cluster.revoke("reports");
		// the drain interrupted the work and waited for it to end before the release
		assertThat(run).succeedsWithin(Duration.ofSeconds(5)).isEqualTo(true);
		assertThat(this.cluster.events(LeaderRevokedEvent.class)).last()
			.satisfies((revoked) -> assertThat(revoked.reason()).isEqualTo(RevocationReason.RESIGNED));
		assertThat(this.cluster.node().isLeader("reports")).isFalse();
	}

	@Test
	void misuseSaysWhatToDoInstead() {
		this.cluster.revoke("reports");
		assertThatIllegalStateException().isThrownBy(() -> this.cluster.revoke("reports"))
			.withMessageContaining("elect(\"reports\") first");
		assertThatIllegalArgumentException().isThrownBy(() -> this.cluster.revoke("default", RevocationReason.SHUTDOWN))
			.withMessageContaining("stop");
		assertThatIllegalArgumentException().isThrownBy(() -> this.cluster.electOther("reports", "node-a"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.cluster.removeMember("nobody"));
	}

	public static class Reports {

		final List<Long> epochs = new CopyOnWriteArrayList<>();

		final CountDownLatch started = new CountDownLatch(1);

		@LeaderOnly(group = "reports")
		public boolean generate() {
			this.epochs.add(LeaderContext.currentTerm().epoch());
			return true;
		}

		@LeaderOnly(group = "reports", interruptOnRevoke = true)
		public boolean waitUntilInterrupted() {
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

}
