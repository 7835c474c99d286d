package dev.membership.test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;

import static dev.membership.test.StoreFixtures.A;
import static dev.membership.test.StoreFixtures.A2;
import static dev.membership.test.StoreFixtures.B;
import static dev.membership.test.StoreFixtures.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a store must do with leases: atomic acquisition with a strictly increasing epoch,
 * renewal that only moves the expiry forward, release, and the store's clock on every
 * write. Part of {@link MembershipStoreContract}.
 */
interface LeaseContract {

	/** The store under test, on fresh collections. */
	MembershipStore store();

	/** Another client of the same database and collections. */
	MembershipStore anotherClient();

	/**
	 * The time a store reports is the clock that stamps its writes (a write lands between
	 * two samples), and it runs: a store on a frozen clock would never let a lease
	 * expire.
	 */
	@Test
	default void serverTimeIsTheClockThatStampsTheWritesAndItMoves() {
		Instant before = store().serverTime().orElseThrow();
		LeaseRecord lease = store().tryAcquire("g", A, before, before.plus(HOUR)).orElseThrow();
		Instant after = store().serverTime().orElseThrow();
		assertThat(lease.renewedAt()).as("the write's stamp, between two samples").isBetween(before, after);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		Instant later = after;
		while (!later.isAfter(after) && System.nanoTime() < deadline) {
			Thread.onSpinWait();
			later = store().serverTime().orElseThrow();
		}
		assertThat(later).as("the store's clock within 5 s").isAfter(after);
	}

	@Test
	default void acquiresAFreeLeaseWithEpochOne() {
		Instant now = store().serverTime().orElseThrow();
		Optional<LeaseRecord> lease = store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(lease).isPresent();
		assertThat(lease.get().epoch()).isEqualTo(1);
		assertThat(lease.get().isHeldBy(A)).isTrue();
		assertThat(lease.get().holder().address()).isEqualTo("127.0.0.1:1001");
		assertThat(store().findLease("g")).get().extracting(LeaseRecord::epoch).isEqualTo(1L);
	}

	@Test
	default void anotherHolderCannotAcquireAnUnexpiredLease() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(store().tryAcquire("g", B, now, now.plus(HOUR))).isEmpty();
		assertThat(store().findLease("g").get().isHeldBy(A)).isTrue();
	}

	@Test
	default void anotherIncarnationOfTheSameNodeIdCannotAcquireAnUnexpiredLease() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(store().tryAcquire("g", A2, now, now.plus(HOUR))).isEmpty();
	}

	@Test
	default void theHolderMayTakeItsOwnLeaseAgainAsANewTerm() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		Optional<LeaseRecord> again = store().tryAcquire("g", A, now, now.plus(HOUR).plusSeconds(1));
		assertThat(again).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
	}

	@Test
	default void aLateAcquisitionOfTheHolderDoesNotStartATermBehindItsBack() {
		Instant now = store().serverTime().orElseThrow();
		Instant sooner = now.plus(HOUR);
		Instant later = sooner.plusSeconds(10);
		store().tryAcquire("g", A, now, later);
		// a request sent before that one, applied after it: the reply went to nobody
		assertThat(store().tryAcquire("g", A, now, sooner)).isEmpty();
		LeaseRecord lease = store().findLease("g").get();
		assertThat(lease.epoch()).isEqualTo(1);
		assertThat(lease.expiresAt()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
	}

	@Test
	default void aLateRenewalDoesNotReviveAReleasedLease() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(store().release("g", A, 1, null)).isTrue();
		assertThat(store().renew("g", A, 1, now.plus(HOUR), null)).isEmpty();
		assertThat(store().tryAcquire("g", B, now, now.plus(HOUR))).isPresent();
	}

	/**
	 * A renewal that reaches the store after the lease expired by the store's clock finds
	 * nothing to renew, even where nobody took the lease yet: its holder's belief ended
	 * by then, and the next term, its own included, begins with a new epoch (ShedLock's
	 * extension checks the same).
	 */
	@Test
	default void aLateRenewalDoesNotReviveAnExpiredLeaseNobodyTookYet() {
		Instant now = store().serverTime().orElseThrow();
		Instant expiry = now.plusMillis(200);
		store().tryAcquire("g", A, now, expiry);
		store().tryAcquire("h", A, now, expiry);
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (!store().serverTime().orElseThrow().isAfter(expiry) && System.nanoTime() < deadline) {
			// a poll of the store's clock, bounded
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
		}
		assertThat(store().serverTime().orElseThrow()).as("the store's clock passed the expiry").isAfter(expiry);
		assertThat(store().renew("g", A, 1, expiry.plus(HOUR), null)).isEmpty();
		assertThat(store().renewAll(A, Map.of("g", 1L, "h", 1L), expiry.plus(HOUR), Map.of())).isZero();
		assertThat(store().findLease("g").orElseThrow().expiresAt()).isEqualTo(expiry.truncatedTo(ChronoUnit.MILLIS));
		assertThat(store().findLease("h").orElseThrow().expiresAt()).isEqualTo(expiry.truncatedTo(ChronoUnit.MILLIS));
		// its holder takes it again, as a new term
		assertThat(store().tryAcquire("g", A, store().serverTime().orElseThrow(), expiry.plus(HOUR))).get()
			.extracting(LeaseRecord::epoch)
			.isEqualTo(2L);
	}

	@Test
	default void aLateRenewalNeverShortensTheLease() {
		Instant now = store().serverTime().orElseThrow();
		Instant later = now.plus(HOUR).plusSeconds(60);
		store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(store().renew("g", A, 1, later, null)).isPresent();
		assertThat(store().renew("g", A, 1, now.plus(HOUR).plusSeconds(30), null)).isPresent();
		assertThat(store().findLease("g").get().expiresAt()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
	}

	@Test
	default void renewExtendsTheHoldersLease() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		Instant later = now.plus(HOUR).plusSeconds(60);
		assertThat(store().renew("g", A, 1, later, null)).isPresent();
		LeaseRecord lease = store().findLease("g").get();
		assertThat(lease.expiresAt()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
		assertThat(lease.epoch()).isEqualTo(1);
	}

	@Test
	default void expiredLeaseIsTakenOverWithAHigherEpochAndTheOldHolderCannotRenew() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		// b acts at a time after a's expiry
		Instant afterExpiry = now.plus(HOUR).plusSeconds(1);
		Optional<LeaseRecord> taken = store().tryAcquire("g", B, afterExpiry, afterExpiry.plus(HOUR));
		assertThat(taken).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
		assertThat(store().renew("g", A, 1, afterExpiry.plus(HOUR), null)).isEmpty();
		assertThat(store().release("g", A, 1, null)).isFalse();
		assertThat(store().findLease("g").get().isHeldBy(B)).isTrue();
	}

	@Test
	default void renewWithAStaleEpochFails() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		store().tryAcquire("g", A, now, now.plus(HOUR).plusSeconds(1)); // epoch 2
		assertThat(store().renew("g", A, 1, now.plus(HOUR).plusSeconds(2), null)).isEmpty();
		assertThat(store().renew("g", A, 2, now.plus(HOUR).plusSeconds(2), null)).isPresent();
	}

	@Test
	default void releaseLetsAnotherNodeAcquireAtOnceAndKeepsTheEpoch() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(store().release("g", B, 1, null)).isFalse();
		assertThat(store().release("g", A, 1, null)).isTrue();
		assertThat(store().findLease("g").get().epoch()).isEqualTo(1);
		Optional<LeaseRecord> next = store().tryAcquire("g", B, now, now.plus(HOUR));
		assertThat(next).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
	}

	@Test
	default void epochStrictlyIncreasesOverManyAcquisitions() {
		Instant t = store().serverTime().orElseThrow();
		long last = 0;
		for (int i = 0; i < 20; i++) {
			Holder who = (i % 2 == 0) ? A : B;
			Optional<LeaseRecord> lease = store().tryAcquire("g", who, t, t.plusSeconds(1));
			assertThat(lease).as("acquisition %d", i).isPresent();
			assertThat(lease.get().epoch()).isGreaterThan(last);
			last = lease.get().epoch();
			t = t.plusSeconds(2); // the next acquirer acts after this lease expired
		}
		assertThat(last).isEqualTo(20);
	}

	@Test
	default void groupsAreIndependent() {
		Instant now = store().serverTime().orElseThrow();
		assertThat(store().tryAcquire("g1", A, now, now.plus(HOUR))).isPresent();
		assertThat(store().tryAcquire("g2", B, now, now.plus(HOUR))).isPresent();
		assertThat(store().findLease("g1").get().isHeldBy(A)).isTrue();
		assertThat(store().findLease("g2").get().isHeldBy(B)).isTrue();
		assertThat(store().findLease("g3")).isEmpty();
	}

	@Test
	default void acquisitionAndRenewalStampTheStoreClock() {
		Instant before = store().serverTime().orElseThrow();
		LeaseRecord taken = store().tryAcquire("g", A, before, before.plus(HOUR)).get();
		Instant answered = store().serverTime().orElseThrow();
		assertThat(taken.renewedAt()).isBetween(before, answered);
		// the acquirer's clock sample: stamped during the call (two $currentDate fields
		// of one MongoDB update are each the time they were set, not one value)
		assertThat(taken.acquiredAt()).isBetween(before, answered);
		Instant renewedAt = store().renew("g", A, 1, before.plus(HOUR), null).get();
		Instant after = store().serverTime().orElseThrow();
		assertThat(renewedAt).isBetween(taken.renewedAt(), after);
		assertThat(store().findLease("g").get().renewedAt()).isEqualTo(renewedAt);
	}

	@Test
	default void renewAllRenewsOnlyTheLeasesStillHeldWithTheirEpochsAndNeverShortensOrRestampsOne() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("t#0", A, now, now.plus(HOUR));
		store().tryAcquire("t#1", A, now, now.plus(HOUR));
		store().tryAcquire("t#2", A, now, now.plus(HOUR));
		store().release("t#2", A, 1, null);
		store().tryAcquire("t#3", B, now, now.plus(HOUR));
		Instant later = now.plus(HOUR).plusSeconds(60);
		Map<String, Long> mine = new TreeMap<>(Map.of("t#0", 1L, "t#1", 7L, "t#2", 1L, "t#3", 1L, "t#4", 1L));
		// t#1: another epoch; t#2 released; t#3 not A's
		assertThat(store().renewAll(A, mine, later, Map.of())).isEqualTo(1);
		assertThat(store().findLease("t#0").get().expiresAt()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
		assertThat(store().findLease("t#0").get().renewedAt()).isAfterOrEqualTo(now);
		assertThat(store().findLease("t#1").get().expiresAt()).isEqualTo(now.plus(HOUR).truncatedTo(ChronoUnit.MILLIS));
		assertThat(store().findLease("t#2").get().expiresAt()).isEqualTo(LeaseRecord.RELEASED);
		assertThat(store().findLease("t#3").get().isHeldBy(B)).isTrue();
		assertThat(store().findLease("t#4")).isEmpty();
		// a late one never shortens the leases, nor stamps them: renewedAt stays the
		// newer renewal's
		Instant stamped = store().findLease("t#0").get().renewedAt();
		assertThat(store().renewAll(A, Map.of("t#0", 1L), now.plus(HOUR), Map.of())).isZero();
		assertThat(store().findLease("t#0").get().expiresAt()).isEqualTo(later.truncatedTo(ChronoUnit.MILLIS));
		assertThat(store().findLease("t#0").get().renewedAt()).isEqualTo(stamped);
		assertThat(store().renewAll(A, Map.of("t#0", 1L), later, Map.of())).as("the same request again").isZero();
		assertThat(store().renewAll(A, Map.of(), later, Map.of())).isZero();
	}

	@Test
	default void releaseAllReleasesOnlyTheLeasesHeldWithTheirEpochs() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("r#0", A, now, now.plus(HOUR));
		store().tryAcquire("r#1", A, now, now.plus(HOUR));
		store().tryAcquire("r#2", B, now, now.plus(HOUR));
		Map<String, Long> mine = new TreeMap<>(Map.of("r#0", 1L, "r#1", 7L, "r#2", 1L, "r#3", 1L));
		// r#1: another epoch; r#2 not A's; r#3 none
		assertThat(store().releaseAll(A, mine, Map.of())).isEqualTo(1);
		assertThat(store().findLease("r#0").get().expiresAt()).isEqualTo(LeaseRecord.RELEASED);
		assertThat(store().findLease("r#0").get().epoch()).isEqualTo(1);
		assertThat(store().findLease("r#1").get().expiresAt()).isAfter(now);
		assertThat(store().findLease("r#2").get().isHeldBy(B)).isTrue();
		assertThat(store().findLease("r#2").get().expiresAt()).isAfter(now);
		assertThat(store().releaseAll(A, Map.of(), Map.of())).isZero();
		// the next holder takes a released lease at once, with the next epoch
		assertThat(store().tryAcquire("r#0", B, now, now.plus(HOUR)).get().epoch()).isEqualTo(2);
	}

	@Test
	default void exactlyOneOfManyConcurrentClientsAndThreadsAcquires() throws Exception {
		int clients = 4;
		int threadsPerClient = 4;
		int rounds = 10;
		List<MembershipStore> stores = new ArrayList<>();
		for (int i = 0; i < clients; i++) {
			stores.add(anotherClient());
		}
		ExecutorService pool = Executors.newFixedThreadPool(clients * threadsPerClient);
		try {
			Instant base = store().serverTime().orElseThrow();
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
				assertThat(store().findLease("race").get().isHeldBy(winners.get(0).holder())).isTrue();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
