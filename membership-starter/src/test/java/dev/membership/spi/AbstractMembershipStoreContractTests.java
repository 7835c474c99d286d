package dev.membership.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.membership.liveness.Member;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every {@link MembershipStore} must do. Subclasses say how to make a store on fresh collections; the same suite
 * runs against the embedded stand-in, a Testcontainers MongoDB and any server named by MEMBERSHIP_TEST_MONGO_URI.
 */
public abstract class AbstractMembershipStoreContractTests {

	private static final AtomicInteger namespaces = new AtomicInteger();

	private static final Duration HOUR = Duration.ofHours(1);

	private final Holder a = new Holder("node-a", "a-1", "127.0.0.1:1001");

	private final Holder a2 = new Holder("node-a", "a-2", "127.0.0.1:1001");

	private final Holder b = new Holder("node-b", "b-1", "127.0.0.1:1002");

	private String namespace;

	protected MembershipStore store;

	/** A store on collections named after {@code namespace}, over a client of its own. */
	protected abstract MembershipStore createStore(String namespace);

	@BeforeEach
	void setUpStore() {
		this.namespace = "contract" + System.nanoTime() % 100000 + "_" + namespaces.incrementAndGet();
		this.store = createStore(this.namespace);
		this.store.initialize();
	}

	private Instant now() {
		return this.store.serverTime();
	}

	@Test
	void serverTimeIsTheServersClockAndMoves() {
		Instant first = now();
		Instant second = now();
		assertThat(second).isAfterOrEqualTo(first);
	}

	@Test
	void acquiresAFreeLeaseWithEpochOne() {
		Instant now = now();
		Optional<LeaseRecord> lease = this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		assertThat(lease).isPresent();
		assertThat(lease.get().epoch()).isEqualTo(1);
		assertThat(lease.get().isHeldBy(this.a)).isTrue();
		assertThat(lease.get().holder().address()).isEqualTo("127.0.0.1:1001");
		assertThat(this.store.findLease("g")).get().extracting(LeaseRecord::epoch).isEqualTo(1L);
	}

	@Test
	void anotherHolderCannotAcquireAnUnexpiredLease() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		assertThat(this.store.tryAcquire("g", this.b, now, now.plus(HOUR))).isEmpty();
		assertThat(this.store.findLease("g").get().isHeldBy(this.a)).isTrue();
	}

	@Test
	void anotherIncarnationOfTheSameNodeIdCannotAcquireAnUnexpiredLease() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		assertThat(this.store.tryAcquire("g", this.a2, now, now.plus(HOUR))).isEmpty();
	}

	@Test
	void theHolderMayTakeItsOwnLeaseAgainAsANewTerm() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		Optional<LeaseRecord> again = this.store.tryAcquire("g", this.a, now, now.plus(HOUR).plusSeconds(1));
		assertThat(again).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
	}

	@Test
	void aLateAcquisitionOfTheHolderDoesNotStartATermBehindItsBack() {
		Instant now = now();
		Instant sooner = now.plus(HOUR);
		Instant later = sooner.plusSeconds(10);
		this.store.tryAcquire("g", this.a, now, later);
		// a request sent before that one, applied after it: the reply went to nobody
		assertThat(this.store.tryAcquire("g", this.a, now, sooner)).isEmpty();
		LeaseRecord lease = this.store.findLease("g").get();
		assertThat(lease.epoch()).isEqualTo(1);
		assertThat(lease.expiresAt()).isEqualTo(later.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
	}

	@Test
	void aLateRenewalDoesNotReviveAReleasedLease() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		assertThat(this.store.release("g", this.a, 1)).isTrue();
		assertThat(this.store.renew("g", this.a, 1, now.plus(HOUR))).isEmpty();
		assertThat(this.store.tryAcquire("g", this.b, now, now.plus(HOUR))).isPresent();
	}

	@Test
	void aLateRenewalNeverShortensTheLease() {
		Instant now = now();
		Instant later = now.plus(HOUR).plusSeconds(60);
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		assertThat(this.store.renew("g", this.a, 1, later)).isPresent();
		assertThat(this.store.renew("g", this.a, 1, now.plus(HOUR).plusSeconds(30))).isPresent();
		assertThat(this.store.findLease("g").get().expiresAt())
			.isEqualTo(later.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
	}

	@Test
	void renewExtendsTheHoldersLease() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		Instant later = now.plus(HOUR).plusSeconds(60);
		assertThat(this.store.renew("g", this.a, 1, later)).isPresent();
		LeaseRecord lease = this.store.findLease("g").get();
		assertThat(lease.expiresAt()).isEqualTo(later.truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
		assertThat(lease.epoch()).isEqualTo(1);
	}

	@Test
	void expiredLeaseIsTakenOverWithAHigherEpochAndTheOldHolderCannotRenew() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		// b acts at a time after a's expiry
		Instant afterExpiry = now.plus(HOUR).plusSeconds(1);
		Optional<LeaseRecord> taken = this.store.tryAcquire("g", this.b, afterExpiry, afterExpiry.plus(HOUR));
		assertThat(taken).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
		assertThat(this.store.renew("g", this.a, 1, afterExpiry.plus(HOUR))).isEmpty();
		assertThat(this.store.release("g", this.a, 1)).isFalse();
		assertThat(this.store.findLease("g").get().isHeldBy(this.b)).isTrue();
	}

	@Test
	void renewWithAStaleEpochFails() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR).plusSeconds(1)); // epoch 2
		assertThat(this.store.renew("g", this.a, 1, now.plus(HOUR).plusSeconds(2))).isEmpty();
		assertThat(this.store.renew("g", this.a, 2, now.plus(HOUR).plusSeconds(2))).isPresent();
	}

	@Test
	void releaseLetsAnotherNodeAcquireAtOnceAndKeepsTheEpoch() {
		Instant now = now();
		this.store.tryAcquire("g", this.a, now, now.plus(HOUR));
		assertThat(this.store.release("g", this.b, 1)).isFalse();
		assertThat(this.store.release("g", this.a, 1)).isTrue();
		assertThat(this.store.findLease("g").get().epoch()).isEqualTo(1);
		Optional<LeaseRecord> next = this.store.tryAcquire("g", this.b, now, now.plus(HOUR));
		assertThat(next).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
	}

	@Test
	void epochStrictlyIncreasesOverManyAcquisitions() {
		Instant t = now();
		long last = 0;
		for (int i = 0; i < 20; i++) {
			Holder who = (i % 2 == 0) ? this.a : this.b;
			Optional<LeaseRecord> lease = this.store.tryAcquire("g", who, t, t.plusSeconds(1));
			assertThat(lease).as("acquisition %d", i).isPresent();
			assertThat(lease.get().epoch()).isGreaterThan(last);
			last = lease.get().epoch();
			t = t.plusSeconds(2); // the next acquirer acts after this lease expired
		}
		assertThat(last).isEqualTo(20);
	}

	@Test
	void groupsAreIndependent() {
		Instant now = now();
		assertThat(this.store.tryAcquire("g1", this.a, now, now.plus(HOUR))).isPresent();
		assertThat(this.store.tryAcquire("g2", this.b, now, now.plus(HOUR))).isPresent();
		assertThat(this.store.findLease("g1").get().isHeldBy(this.a)).isTrue();
		assertThat(this.store.findLease("g2").get().isHeldBy(this.b)).isTrue();
		assertThat(this.store.findLease("g3")).isEmpty();
	}

	@Test
	void heartbeatUpsertsStampsTheStoreClockAndSaysWhenAnotherIncarnationWroteTheDocument() {
		Instant before = now();
		NodeRecord first = new NodeRecord("node-a", "a-1", "127.0.0.1:1001", before, null, List.of("default"));
		Heartbeat created = this.store.heartbeat(first);
		assertThat(created.tookOver()).isFalse();
		assertThat(this.store.heartbeat(first).tookOver()).isFalse();
		Instant after = now();
		assertThat(created.writtenAt()).isBetween(before, after);
		NodeRecord stored = this.store.findNodes().get(0);
		assertThat(stored.nodeId()).isEqualTo("node-a");
		assertThat(stored.address()).isEqualTo("127.0.0.1:1001");
		assertThat(stored.groups()).containsExactly("default");
		assertThat(stored.updatedAt()).isBetween(before, after);
		NodeRecord restarted = new NodeRecord("node-a", "a-2", "127.0.0.1:1001", after, null, List.of("default"));
		Heartbeat takeover = this.store.heartbeat(restarted);
		assertThat(takeover.tookOver()).isTrue();
		assertThat(takeover.writtenAt()).isAfterOrEqualTo(after);
		assertThat(this.store.findNodes().get(0).incarnation()).isEqualTo("a-2");
		assertThat(this.store.heartbeat(restarted).tookOver()).isFalse();
		// the first process is still running: each sees the other's writes
		assertThat(this.store.heartbeat(first).tookOver()).isTrue();
		assertThat(this.store.findNodes()).hasSize(1);
	}

	@Test
	void acquisitionAndRenewalStampTheStoreClock() {
		Instant before = now();
		LeaseRecord taken = this.store.tryAcquire("g", this.a, before, before.plus(HOUR)).get();
		assertThat(taken.renewedAt()).isBetween(before, now());
		assertThat(taken.acquiredAt()).isEqualTo(taken.renewedAt()); // the acquirer's clock sample
		Instant renewedAt = this.store.renew("g", this.a, 1, before.plus(HOUR)).get();
		Instant after = now();
		assertThat(renewedAt).isBetween(taken.renewedAt(), after);
		assertThat(this.store.findLease("g").get().renewedAt()).isEqualTo(renewedAt);
	}

	@Test
	void findLeasesReadsTheGroupsLeasesAndTheRosterOnlyWhenItsVersionChanged() {
		Instant now = now();
		this.store.tryAcquire("g1", this.a, now, now.plus(HOUR));
		this.store.tryAcquire("g2", this.b, now, now.plus(HOUR));
		LeaseReading none = this.store.findLeases(List.of("g1", "g3"), 0);
		assertThat(none.leases()).containsOnlyKeys("g1");
		assertThat(none.leases().get("g1").isHeldBy(this.a)).isTrue();
		assertThat(none.roster()).isNull();
		assertThat(this.store.findRoster()).isEmpty();

		long version = this.store.writeRoster(List.of(member("node-a", true)), List.of(), "node-a", 1, 1).getAsLong();
		LeaseReading first = this.store.findLeases(List.of("g1", "g2"), 0);
		assertThat(first.leases()).containsOnlyKeys("g1", "g2");
		assertThat(first.roster().version()).isEqualTo(version);
		assertThat(this.store.findLeases(List.of("g1"), version).roster()).isNull();
		assertThat(this.store.findLeases(List.of("g1"), version - 1).roster()).isNotNull();
	}

	@Test
	void writeRosterGrowsTheVersionAndKeepsTheMembersAndTheRecentChanges() {
		Instant before = now();
		Member live = member("node-a", true);
		Member gone = member("node-b", false);
		RosterChange first = new RosterChange(0, List.of(live, gone), List.of());
		assertThat(this.store.writeRoster(List.of(live, gone), List.of(first), "node-a", 4, 1)).hasValue(1);
		Roster roster = this.store.findRoster().get();
		assertThat(roster.version()).isEqualTo(1);
		assertThat(roster.keeperNodeId()).isEqualTo("node-a");
		assertThat(roster.epoch()).isEqualTo(4);
		assertThat(roster.writtenAt()).isBetween(before, now());
		assertThat(roster.members()).containsExactly(live, gone);
		assertThat(roster.changes()).containsExactly(first);
		RosterChange second = new RosterChange(1, List.of(), List.of(gone));
		assertThat(this.store.writeRoster(List.of(live), List.of(first, second), "node-a", 4, 2)).hasValue(2);
		assertThat(this.store.findRoster().get().members()).containsExactly(live);
		// what every member reads: the recent changes, not the member list
		Roster header = this.store.findLeases(List.of(), 1).roster();
		assertThat(header.version()).isEqualTo(2);
		assertThat(header.members()).isEmpty();
		assertThat(header.changes()).containsExactly(first, second);
	}

	@Test
	void writeRosterIsFencedByTheKeepersEpochAndItsOwnSequence() {
		Member one = member("node-a", true);
		Member two = member("node-b", true);
		assertThat(this.store.writeRoster(List.of(one), List.of(), "node-a", 4, 2)).hasValue(1);
		// a write of the same keeper sent before that one, applied after it
		assertThat(this.store.writeRoster(List.of(two), List.of(), "node-a", 4, 1)).isEmpty();
		// a new keeper, then the deposed one
		assertThat(this.store.writeRoster(List.of(two), List.of(), "node-b", 5, 1)).hasValue(2);
		assertThat(this.store.writeRoster(List.of(one), List.of(), "node-a", 4, 3)).isEmpty();
		Roster roster = this.store.findRoster().get();
		assertThat(roster.version()).isEqualTo(2);
		assertThat(roster.keeperNodeId()).isEqualTo("node-b");
		assertThat(roster.members()).containsExactly(two);
	}

	/** A member with millisecond times, as every store keeps them. */
	private static Member member(String nodeId, boolean live) {
		Instant started = Instant.ofEpochMilli(1_700_000_000_123L);
		return new Member(nodeId, nodeId + "-1", "127.0.0.1:1001", started, started.plusSeconds(60),
				List.of("default", "reports"), live);
	}

	@Test
	void livenessTimesAreComparableWithTheServerClock() throws InterruptedException {
		this.store.heartbeat(new NodeRecord("node-a", "a-1", "x", now(), null, List.of()));
		Instant stamped = this.store.findNodes().get(0).updatedAt();
		Instant later = now();
		assertThat(Duration.between(stamped, later)).isBetween(Duration.ofMillis(-1), Duration.ofSeconds(5));
	}

	@Test
	void removeNodeOnlyRemovesTheGivenIncarnation() {
		this.store.heartbeat(new NodeRecord("node-a", "a-2", "x", now(), null, List.of()));
		this.store.removeNode("node-a", "a-1");
		assertThat(this.store.findNodes()).hasSize(1);
		this.store.removeNode("node-a", "a-2");
		assertThat(this.store.findNodes()).isEmpty();
	}

	@Test
	void removesNodesNotSeenSinceACutoff() {
		this.store.heartbeat(new NodeRecord("node-a", "a-1", "x", now(), null, List.of()));
		this.store.heartbeat(new NodeRecord("node-b", "b-1", "y", now(), null, List.of()));
		Instant now = now();
		assertThat(this.store.removeNodesNotSeenSince(now.minusSeconds(60))).isZero();
		assertThat(this.store.removeNodesNotSeenSince(now.plusSeconds(1))).isEqualTo(2);
		assertThat(this.store.findNodes()).isEmpty();
	}

	@Test
	void exactlyOneOfManyConcurrentClientsAndThreadsAcquires() throws Exception {
		int clients = 4;
		int threadsPerClient = 4;
		int rounds = 10;
		List<MembershipStore> stores = new ArrayList<>();
		for (int i = 0; i < clients; i++) {
			stores.add(createStore(this.namespace));
		}
		ExecutorService pool = Executors.newFixedThreadPool(clients * threadsPerClient);
		try {
			Instant base = now();
			for (int round = 1; round <= rounds; round++) {
				// every contender acts after the previous round's lease expired
				Instant at = base.plusSeconds(10L * round);
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Optional<LeaseRecord>>> results = new ArrayList<>();
				for (int c = 0; c < clients; c++) {
					for (int t = 0; t < threadsPerClient; t++) {
						MembershipStore s = stores.get(c);
						Holder h = new Holder("node-" + c + "-" + t, "inc-" + round, "127.0.0.1:" + (2000 + c));
						results.add(pool.submit(() -> {
							go.await(5, TimeUnit.SECONDS);
							return s.tryAcquire("race", h, at, at.plusSeconds(5));
						}));
					}
				}
				go.countDown();
				List<LeaseRecord> winners = new ArrayList<>();
				for (Future<Optional<LeaseRecord>> f : results) {
					f.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
				}
				assertThat(winners).as("winners of round %d", round).hasSize(1);
				assertThat(winners.get(0).epoch()).isEqualTo(round);
				assertThat(this.store.findLease("race").get().isHeldBy(winners.get(0).holder())).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
