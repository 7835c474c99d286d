package dev.membership.test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.membership.spi.Heartbeat;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a store must do with node documents: heartbeats stamped by the store's clock that
 * tell a restarted incarnation, and removal by incarnation and by age. Part of
 * {@link MembershipStoreContract}.
 */
interface LivenessContract {

	/** The store under test, on fresh collections. */
	MembershipStore store();

	@Test
	default void heartbeatUpsertsStampsTheStoreClockAndSaysWhenAnotherIncarnationWroteTheDocument() {
		Instant before = store().serverTime().orElseThrow();
		NodeRecord first = new NodeRecord("node-a", "a-1", "127.0.0.1:1001", before, null, List.of("default"));
		Heartbeat created = store().heartbeat(first);
		assertThat(created.tookOver()).isFalse();
		assertThat(store().heartbeat(first).tookOver()).isFalse();
		Instant after = store().serverTime().orElseThrow();
		assertThat(created.writtenAt()).isBetween(before, after);
		NodeRecord stored = store().findNodes().get(0);
		assertThat(stored.nodeId()).isEqualTo("node-a");
		assertThat(stored.address()).isEqualTo("127.0.0.1:1001");
		assertThat(stored.groups()).containsExactly("default");
		assertThat(stored.updatedAt()).isBetween(before, after);
		NodeRecord restarted = new NodeRecord("node-a", "a-2", "127.0.0.1:1001", after, null, List.of("default"));
		Heartbeat takeover = store().heartbeat(restarted);
		assertThat(takeover.tookOver()).isTrue();
		assertThat(takeover.writtenAt()).isAfterOrEqualTo(after);
		assertThat(store().findNodes().get(0).incarnation()).isEqualTo("a-2");
		assertThat(store().heartbeat(restarted).tookOver()).isFalse();
		// the first process is still running: each sees the other's writes
		assertThat(store().heartbeat(first).tookOver()).isTrue();
		assertThat(store().findNodes()).hasSize(1);
	}

	@Test
	default void aNodeThatDoesNotKnowWhenItStartedGetsTheStampOfItsFirstWrite() {
		NodeRecord unknown = new NodeRecord("node-a", "a-1", "127.0.0.1:1001", null, null, List.of("default"));
		Heartbeat written = store().heartbeat(unknown);
		assertThat(store().findNodes().get(0).startedAt()).isEqualTo(written.writtenAt());
		Instant known = written.writtenAt().plusMillis(5);
		store().heartbeat(new NodeRecord("node-a", "a-1", "127.0.0.1:1001", known, null, List.of("default")));
		assertThat(store().findNodes().get(0).startedAt()).isEqualTo(known);
	}

	@Test
	default void livenessTimesAreComparableWithTheServerClock() throws InterruptedException {
		store().heartbeat(new NodeRecord("node-a", "a-1", "x", store().serverTime().orElseThrow(), null, List.of()));
		Instant stamped = store().findNodes().get(0).updatedAt();
		Instant later = store().serverTime().orElseThrow();
		assertThat(Duration.between(stamped, later)).isBetween(Duration.ofMillis(-1), Duration.ofSeconds(5));
	}

	@Test
	default void removeNodeOnlyRemovesTheGivenIncarnation() {
		store().heartbeat(new NodeRecord("node-a", "a-2", "x", store().serverTime().orElseThrow(), null, List.of()));
		store().removeNode("node-a", "a-1");
		assertThat(store().findNodes()).hasSize(1);
		store().removeNode("node-a", "a-2");
		assertThat(store().findNodes()).isEmpty();
	}

	@Test
	default void removesNodesNotSeenSinceACutoff() {
		store().heartbeat(new NodeRecord("node-a", "a-1", "x", store().serverTime().orElseThrow(), null, List.of()));
		store().heartbeat(new NodeRecord("node-b", "b-1", "y", store().serverTime().orElseThrow(), null, List.of()));
		Instant now = store().serverTime().orElseThrow();
		assertThat(store().removeNodesNotSeenSince(now.minusSeconds(60))).isZero();
		assertThat(store().removeNodesNotSeenSince(now.plusSeconds(1))).isEqualTo(2);
		assertThat(store().findNodes()).isEmpty();
	}

	@Test
	default void aNodeDocumentKeepsThePartitionCountsOfItsGroups() {
		store().heartbeat(new NodeRecord("node-a", "a-1", "x", store().serverTime().orElseThrow(), null,
				List.of("default", "t"), Map.of("t", 16)));
		assertThat(store().findNodes().get(0).partitions()).isEqualTo(Map.of("t", 16));
		store().heartbeat(
				new NodeRecord("node-a", "a-1", "x", store().serverTime().orElseThrow(), null, List.of("default")));
		assertThat(store().findNodes().get(0).partitions()).isEmpty();
	}

}
