package dev.membership.test;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.membership.spi.FireMark;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;

import static dev.membership.test.StoreFixtures.A;
import static dev.membership.test.StoreFixtures.B;
import static dev.membership.test.StoreFixtures.HOUR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a store must do with the marks of scheduled fires that ride a lease: a renewal and
 * a release write them, whole, for the lease's holder only; an acquisition leaves them
 * for the next term. Part of {@link MembershipStoreContract}.
 */
interface FireMarksContract {

	/** The store under test, on fresh collections. */
	MembershipStore store();

	/**
	 * A holder's fires ride its renewal and its release; an acquisition leaves them, so
	 * that the next term finds them, each mark whole (owed, and its schedule); a renewal
	 * or release of a term that is over writes none.
	 */
	@Test
	default void theFiresOfATermRideItsRenewalAndReleaseAndTheNextTermFindsThem() {
		Instant now = store().serverTime().orElseThrow();
		Instant fire = now.truncatedTo(ChronoUnit.SECONDS);
		store().tryAcquire("f", A, now, now.plus(HOUR));
		List<FireMark> begun = List.of(new FireMark("jobs#nightly", fire, false), new FireMark("a.b#c", fire, true));
		assertThat(store().renew("f", A, 1, now.plus(HOUR), begun)).isPresent();
		assertThat(store().findLease("f").get().fires()).containsExactlyInAnyOrderElementsOf(begun);
		assertThat(store().renew("f", A, 1, now.plus(HOUR), null)).as("null leaves them").isPresent();
		assertThat(store().findLease("f").get().fires()).containsExactlyInAnyOrderElementsOf(begun);
		// one ended, one owed (its term ended before its run began), each with its
		// schedule
		List<FireMark> ended = List.of(new FireMark("jobs#nightly", fire, true, false, "cron 0 0 2 * * * Z"),
				new FireMark("a.b#c", fire, false, true, "every PT10S"));
		assertThat(store().release("f", A, 1, ended)).isTrue();
		LeaseRecord next = store().tryAcquire("f", B, now, now.plus(HOUR)).orElseThrow();
		assertThat(next.fires()).as("the next term finds them").containsExactlyInAnyOrderElementsOf(ended);
		// the term that is over writes nothing more
		assertThat(store().renew("f", A, 1, now.plus(HOUR), List.of())).isEmpty();
		assertThat(store().release("f", A, 1, List.of())).isFalse();
		assertThat(store().findLease("f").get().fires()).containsExactlyInAnyOrderElementsOf(ended);
		// a graceful stop's release of all its leases, each with its own fires
		List<FireMark> later = List.of(new FireMark("jobs#nightly", fire.plusSeconds(10), true));
		assertThat(store().releaseAll(B, Map.of("f", 2L), Map.of("f", later))).isEqualTo(1);
		assertThat(store().findLease("f").get().fires()).containsExactlyElementsOf(later);
	}

	@Test
	default void theRenewalOfManyLeasesWritesTheFiresOfThoseItNamesAndLeavesTheOthers() {
		Instant now = store().serverTime().orElseThrow();
		Instant fire = now.truncatedTo(ChronoUnit.SECONDS);
		List<FireMark> kept = List.of(new FireMark("jobs#kept", fire, true));
		for (String lease : List.of("g", "h", "t#0")) {
			store().tryAcquire(lease, A, now, now.plus(HOUR));
			store().renew(lease, A, 1, now.plus(HOUR), kept);
		}
		List<FireMark> begun = List.of(new FireMark("jobs#nightly", fire.plusSeconds(1), false));
		List<FireMark> ended = List.of(new FireMark("jobs#hourly", fire.plusSeconds(2), true));
		Map<String, Long> all = Map.of("g", 1L, "h", 1L, "t#0", 1L);
		assertThat(store().renewAll(A, all, now.plus(HOUR).plusSeconds(1), Map.of("g", begun, "h", ended)))
			.isEqualTo(3);
		assertThat(store().findLease("g").get().fires()).containsExactlyElementsOf(begun);
		assertThat(store().findLease("h").get().fires()).containsExactlyElementsOf(ended);
		assertThat(store().findLease("t#0").get().fires()).as("not named: kept").containsExactlyElementsOf(kept);
		// a lease it did not renew (another holder's request) gets none of them
		assertThat(store().renewAll(B, Map.of("g", 1L), now.plus(HOUR).plusSeconds(2), Map.of("g", ended))).isZero();
		assertThat(store().findLease("g").get().fires()).containsExactlyElementsOf(begun);
	}

}
