package dev.membership.engine;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.membership.operations.Drain;
import dev.membership.operations.HandOver;
import dev.membership.operations.Pause;
import dev.membership.operations.Release;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.operations.Resume;
import dev.membership.operations.Undrain;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunRecord;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.TestCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Every operator's action, carried out or refused, is recorded with who asked and from
 * where, in the run history and in one INFO line; the application's readiness drains as
 * itself, apart from an operator's drain, and neither undoes the other.
 */
@ExtendWith({ FastPolling.class, OutputCaptureExtension.class })
class OperatorHistoryTests {

	private static final Requester ALICE = new Requester("alice", "10.0.0.7");

	/** The history as written: each record as the node sent it. */
	private final List<RunRecord> written = new CopyOnWriteArrayList<>();

	private final TestCluster cluster = InMemoryStores.cluster()
		.customize((settings) -> settings.partitions("t", 2).groups(Set.of("reports")))
		.recordingHistory(this.written, 100);

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	@Test
	void everyActionCarriedOutOrRefusedIsRecordedWithWhoAskedAndFromWhere(CapturedOutput output) {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("reports") && node.ownedTerms("t").size() == 2);
		long epoch = node.currentTerm("reports").orElseThrow().epoch();
		long partitionEpoch = node.partitionTerm("t", 1).orElseThrow().epoch();

		assertThatIllegalArgumentException()
			.isThrownBy(() -> node.operations().handOver(new HandOver("reports", "n9", Requester.anonymous("::1"))));
		assertThat(node.operations().resign(new Resign("reports", ALICE)).resigned()).isTrue();
		assertThat(node.operations().release(new Release("t", 1, Requester.of("admin-console"))).resigned()).isTrue();
		node.operations().pause(new Pause(Duration.ofMinutes(5), ALICE));
		node.operations().resume(new Resume(ALICE));

		RunRecord resign = action("operator#resign");
		assertThat(resign.group()).isEqualTo("reports");
		assertThat(resign.epoch()).as("the epoch it handed over").isEqualTo(epoch);
		assertThat(resign.outcome()).isEqualTo(RunOutcome.SUCCESS);
		assertThat(resign.requestedBy()).isEqualTo("alice");
		assertThat(resign.requestedFrom()).isEqualTo("10.0.0.7");
		assertThat(resign.nodeId()).isEqualTo("n1");
		assertThat(resign.startedAt()).isEqualTo(resign.endedAt());
		RunRecord release = action("operator#release");
		assertThat(release.partition()).isEqualTo(1);
		assertThat(release.epoch()).isEqualTo(partitionEpoch);
		assertThat(release.requestedBy()).isEqualTo("admin-console");
		assertThat(release.requestedFrom()).isNull();
		// a refusal's name is fixed: a caller makes no new names
		RunRecord refused = action("operator#handover");
		assertThat(refused.outcome()).as("a refusal is recorded too").isEqualTo(RunOutcome.ERROR);
		assertThat(refused.error()).startsWith("IllegalArgumentException: ").contains("'n9' is not a live member");
		assertThat(refused.requestedBy()).isEqualTo("anonymous");
		assertThat(refused.requestedFrom()).isEqualTo("::1");
		assertThat(action("operator#pause").requestedBy()).isEqualTo("alice");
		assertThat(action("operator#resume").requestedBy()).isEqualTo("alice");

		assertThat(output.getOut())
			.contains("Membership node n1 carries out operator#resign asked by alice from "
					+ "10.0.0.7: ResignResult[group=reports, partition=null, resigned=true]")
			.contains("Membership node n1 carries out operator#release asked by admin-console: ")
			.contains("Membership node n1 refused operator#handover asked by anonymous from ::1: Node 'n9' is not a "
					+ "live member");
		assertThat(output.getOut().lines().filter((l) -> l.contains("operator#resign asked by"))).hasSize(1);
	}

	/**
	 * What a caller sends never makes a log line nor a name of the history: a CR and LF
	 * in a refused request are not a forged line, and fifty refusals naming fifty groups
	 * and partitions make no new ring, nor do fifty pauses of fifty lengths. Before: a
	 * forged INFO line, and a ring per partition, group and length.
	 */
	@Test
	void aCallersValuesMakeNoLineAndNoNameOfTheirOwn(CapturedOutput output) {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.ownedTerms("t").size() == 2);
		for (int i = 0; i < 50; i++) {
			int partition = 100 + i;
			assertThatIllegalArgumentException()
				.isThrownBy(() -> node.operations().release(new Release("t", partition, ALICE)));
			String group = "g" + i + "\r\nINFO forged";
			assertThatIllegalArgumentException()
				.isThrownBy(() -> node.operations().release(new Release(group, 0, ALICE)));
			node.operations().pause(new Pause(Duration.ofSeconds(60 + i), ALICE));
		}
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.written).filteredOn((r) -> r.job().startsWith("operator#"))
				.extracting((r) -> r.job() + " " + r.group() + " " + r.partition())
				.containsOnly("operator#release default null", "operator#pause default null"));
		assertThat(output.getOut().lines()).noneMatch((line) -> line.startsWith("INFO forged"));
	}

	@Test
	void theReadinessDrainsAsItselfAndNeitherItNorAnOperatorUndoesTheOthersDrain() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("reports"));

		node.followReadiness(false);
		assertThat(node.status().drained()).isTrue();
		await().atMost(Duration.ofSeconds(2)).until(() -> !node.isLeader("reports"));
		node.followReadiness(false); // the same readiness again: nothing more is recorded
		RunRecord drain = action("readiness#drain");
		assertThat(drain.requestedBy()).isEqualTo("readiness");
		assertThat(this.written).noneMatch((r) -> r.job().startsWith("operator#"));

		// an operator's drain on top; the application ready again does not undo it
		node.operations().drain(new Drain(ALICE));
		node.followReadiness(true);
		assertThat(node.status().drained()).as("the operator's drain holds").isTrue();
		await().during(TestCluster.INTERVAL.multipliedBy(4))
			.atMost(Duration.ofSeconds(2))
			.until(() -> !node.isLeader("reports"));
		assertThat(node.operations().undrain(new Undrain(ALICE)).drained()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("reports"));

		// and the other way round: the operator's undrain does not end the readiness'
		// drain
		node.followReadiness(false);
		node.operations().drain(new Drain(ALICE));
		assertThat(node.operations().undrain(new Undrain(ALICE)).drained()).as("the readiness drains it still")
			.isTrue();
		node.followReadiness(true);
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader("reports"));
		await().atMost(Duration.ofSeconds(2))
			.until(() -> this.written.stream().filter((r) -> r.job().equals("readiness#drain")).count() == 2
					&& this.written.stream().filter((r) -> r.job().equals("readiness#undrain")).count() == 2);
		assertThat(this.written).filteredOn((r) -> r.job().equals("operator#drain"))
			.allSatisfy((r) -> assertThat(r.requestedBy()).isEqualTo("alice"));
	}

	private RunRecord action(String job) {
		return await().atMost(Duration.ofSeconds(2))
			.until(() -> this.written.stream().filter((r) -> r.job().equals(job)).toList(), (l) -> l.size() == 1)
			.get(0);
	}

}
