package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.testsupport.InMemoryStores;
import dev.membership.testsupport.FaultInjectingStore;
import dev.membership.testsupport.TestCluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The keeper of the roster: how it starts, and its own node document. */
class RosterKeeperTests {

	private final TestCluster cluster = InMemoryStores.cluster().withNotices();

	@AfterEach
	void close() {
		this.cluster.close();
		this.cluster.recorder().assertSafe();
	}

	/**
	 * A node that becomes the keeper while its view of the roster is behind the stored
	 * one (it missed the last write of the keeper before it) starts from the stored
	 * roster, members and placement both, so that its first write says what it changed
	 * from there and the members catch up by it.
	 */
	@Test
	void aKeeperWhoseViewIsBehindRecordsWhatItsFirstWriteChanges() {
		MembershipNode a = this.cluster.start("a");
		await().atMost(Duration.ofSeconds(10)).until(() -> a.isLeader(MembershipSettings.DEFAULT_GROUP));
		MembershipNode b = this.cluster.start("b");
		await().atMost(Duration.ofSeconds(10)).until(() -> b.liveMembers().size() == 2 && a.liveMembers().size() == 2);
		FaultInjectingStore bStore = this.cluster.store("b");
		bStore.failLeaseReads(true); // b reads no roster as a follower any more
		// a change that b does not read: a member of another group only, which no node
		// here competes with
		Instant now = this.cluster.store("a").serverTime().orElseThrow();
		this.cluster.store("a").heartbeat(new NodeRecord("ghost", "ghost-1", null, now, now, List.of("elsewhere")));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> stored().members().stream().anyMatch((m) -> m.nodeId().equals("ghost")));
		long behind = stored().version();
		assertThat(b.members()).as("b's view").noneMatch((m) -> m.nodeId().equals("ghost"));
		long wholeReads = bStore.wholeRosterReads();
		a.stop(Duration.ofSeconds(5)); // tells b, which takes the default group over
		await().atMost(Duration.ofSeconds(10)).until(() -> b.isLeader(MembershipSettings.DEFAULT_GROUP));
		bStore.failLeaseReads(false); // as the keeper, it reads other groups' leases
		await().atMost(Duration.ofSeconds(10)).until(() -> !bStore.rosterWrites().isEmpty());
		List<RosterChange> first = bStore.rosterWrites().get(0);
		assertThat(first).as("the changes b's first write kept").isNotEmpty();
		// what this write changed; any before it, kept
		RosterChange change = first.get(first.size() - 1);
		assertThat(change.fromVersion()).as("the version b's first write changed").isGreaterThanOrEqualTo(behind);
		assertThat(change.placed()).as("what b's first write changed in the placement").isNotNull();
		assertThat(bStore.wholeRosterReads()).as("b read the stored roster once, as the keeper")
			.isEqualTo(wholeReads + 1);
	}

	/**
	 * The keeper is live by its renewals, but still writes its document now and then
	 * (every half retention), so that the keeper itself, or a TTL index, never removes it
	 * as a dead node's.
	 */
	@Test
	void theKeeperKeepsItsOwnDocumentPastTheDeadNodeRetention() {
		Duration retention = Duration.ofMillis(600);
		this.cluster.customize((settings) -> settings.deadNodeRetention(retention));
		MembershipNode keeper = this.cluster.start("keeper");
		await().atMost(Duration.ofSeconds(10)).until(() -> keeper.isLeader(MembershipSettings.DEFAULT_GROUP));
		FaultInjectingStore store = this.cluster.store("keeper");
		// its document (a reader's look, not the keeper's) at every poll, for three
		// retentions
		await().during(retention.multipliedBy(3))
			.atMost(retention.multipliedBy(4))
			.until(() -> store.findNodes().stream().anyMatch((n) -> n.nodeId().equals("keeper")));
	}

	private Roster stored() {
		return this.cluster.store("a").findRoster().orElseThrow();
	}

}
