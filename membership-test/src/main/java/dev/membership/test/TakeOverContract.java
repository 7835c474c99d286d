package dev.membership.test;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;

import static dev.membership.test.StoreFixtures.A;
import static dev.membership.test.StoreFixtures.A2;
import static dev.membership.test.StoreFixtures.B;
import static dev.membership.test.StoreFixtures.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The take-over on a notice: a node that let go of a term (and said so) can be succeeded
 * before its release reaches the store, but only in that very term. Part of
 * {@link MembershipStoreContract}.
 */
interface TakeOverContract {

	MembershipStore store();

	@Test
	default void takesOverTheTermItsHolderLetGoOfBeforeTheReleaseLands() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		Optional<LeaseRecord> taken = store().tryTakeOver("g", B, A.nodeId(), 1, now, now.plus(HOUR));
		assertThat(taken).get().extracting(LeaseRecord::epoch).isEqualTo(2L);
		assertThat(taken.get().isHeldBy(B)).isTrue();
		// the old holder's release, renewals and batch calls of that term, landing
		// afterwards, change nothing
		assertThat(store().release("g", A, 1, null)).isFalse();
		assertThat(store().renew("g", A, 1, now.plus(HOUR).plusSeconds(1), null)).isEmpty();
		assertThat(store().renewAll(A, Map.of("g", 1L), now.plus(HOUR).plusSeconds(1), Map.of())).isZero();
		assertThat(store().releaseAll(A, Map.of("g", 1L), java.util.Map.of())).isZero();
		assertThat(store().findLease("g").get().isHeldBy(B)).isTrue();
		assertThat(store().findLease("g").get().epoch()).isEqualTo(2L);
	}

	@Test
	default void takesOverAfterTheReleaseLandedToo() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		store().release("g", A, 1, null);
		assertThat(store().tryTakeOver("g", B, A.nodeId(), 1, now, now.plus(HOUR))).get()
			.extracting(LeaseRecord::epoch)
			.isEqualTo(2L);
	}

	@Test
	default void neverTakesAnotherTermOfTheNodeThatLetGo() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		store().release("g", A, 1, null);
		// A leads again, in epoch 2: the notice of epoch 1 is late
		store().tryAcquire("g", A, now, now.plus(HOUR));
		assertThat(store().tryTakeOver("g", B, A.nodeId(), 1, now, now.plus(HOUR))).isEmpty();
		assertThat(store().tryTakeOver("g", B, A.nodeId(), 3, now, now.plus(HOUR))).isEmpty();
		assertThat(store().findLease("g").get().isHeldBy(A)).isTrue();
		assertThat(store().findLease("g").get().epoch()).isEqualTo(2L);
	}

	@Test
	default void neverTakesAnotherHoldersTerm() {
		Instant now = store().serverTime().orElseThrow();
		store().tryAcquire("g", A, now, now.plus(HOUR));
		// B took over from A; a repeated notice of A's epoch 1 reaches another node
		store().tryTakeOver("g", B, A.nodeId(), 1, now, now.plus(HOUR));
		assertThat(store().tryTakeOver("g", A2, A.nodeId(), 1, now, now.plus(HOUR))).isEmpty();
		assertThat(store().tryTakeOver("g", A2, A.nodeId(), 2, now, now.plus(HOUR))).isEmpty();
		assertThat(store().findLease("g").get().isHeldBy(B)).isTrue();
	}

	@Test
	default void aTakeOverOfALeaseNobodyHeldStartsAtEpochOne() {
		Instant now = store().serverTime().orElseThrow();
		assertThat(store().tryTakeOver("g", B, A.nodeId(), 7, now, now.plus(HOUR))).get()
			.extracting(LeaseRecord::epoch)
			.isEqualTo(1L);
	}

}
