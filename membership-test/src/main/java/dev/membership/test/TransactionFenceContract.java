package dev.membership.test;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;

import org.junit.jupiter.api.Test;

import dev.membership.leadership.FencedOutException;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What every store's transaction fence must do, as JUnit 5 tests: the store's acquisition
 * writes the term record the fence reads (a renewal never does), a fence holds only its
 * own group's current term (an older epoch is fenced out and writes nothing, naming the
 * newer one; a group's fence is not its partitions'), and outside a transaction the fence
 * refuses rather than protect nothing. Extend this class and give {@link #target()} a
 * store on a fresh database (or prefix) and the store's fence. PostgreSQL's
 * {@code JdbcEpochFence} passes it on a real server with its transactions committed;
 * MongoDB's {@code EpochFence} on the stand-in, which has no transactions, through the
 * fence's own statement run outside one. What a contract of one process cannot show (a
 * take-over waits for an older term's open transaction) each store shows on its own.
 */
public abstract class TransactionFenceContract {

	private static final Holder A = new Holder("a", "a-1", null);

	private static final Holder B = new Holder("b", "b-1", null);

	private static final Duration HOUR = Duration.ofHours(1);

	/** A store on a fresh database or prefix, and its transaction fence there. */
	protected abstract Target target();

	/** A store and its transaction fence. */
	protected interface Target {

		/** The store whose acquisitions write the terms the fence reads. */
		MembershipStore store();

		/** The epoch of the term record of {@code lease}, empty when it has none. */
		OptionalLong termEpoch(String lease);

		/**
		 * Runs a transaction fenced with {@code epoch} of {@code group}'s term that
		 * writes row {@code id}, and commits it.
		 * @throws FencedOutException when the fence refuses (and then nothing is written)
		 */
		void runFenced(String group, long epoch, String id);

		/** Whether row {@code id} was written. */
		boolean written(String id);

		/**
		 * Joins the fence of {@code epoch} of {@code group} with no transaction open, as
		 * the store's fence is joined.
		 */
		void joinOutsideATransaction(String group, long epoch);

	}

	@Test
	void everyAcquisitionWritesItsTermAndRenewalsNever() {
		Target target = target();
		MembershipStore store = target.store();
		Instant now = store.serverTime().orElseThrow();
		LeaseRecord first = store.tryAcquire("reports", A, now, now.plus(HOUR)).orElseThrow();
		LeaseRecord partition = store.tryAcquire("tenants#3", A, now, now.plus(HOUR)).orElseThrow();
		assertThat(target.termEpoch("reports")).hasValue(first.epoch());
		assertThat(target.termEpoch("tenants#3")).hasValue(partition.epoch());
		assertThat(store.renew("reports", A, first.epoch(), now.plus(HOUR).plusSeconds(5), null)).isPresent();
		store.renewAll(A, Map.of("reports", first.epoch()), now.plus(HOUR).plusSeconds(9), Map.of());
		assertThat(target.termEpoch("reports")).as("renewals write no term").hasValue(first.epoch());
		assertThat(store.release("reports", A, first.epoch(), null)).isTrue();
		LeaseRecord second = store.tryAcquire("reports", B, now, now.plus(HOUR)).orElseThrow();
		assertThat(second.epoch()).isEqualTo(first.epoch() + 1);
		assertThat(target.termEpoch("reports")).hasValue(second.epoch());
		assertThat(target.termEpoch("tenants#3")).as("a partition's term is its own").hasValue(partition.epoch());
	}

	@Test
	void aTransactionOfTheCurrentTermCommitsAndOneOfAnOlderTermIsFencedOut() {
		Target target = target();
		MembershipStore store = target.store();
		Instant now = store.serverTime().orElseThrow();
		LeaseRecord first = store.tryAcquire("payouts", A, now, now.plus(HOUR)).orElseThrow();
		target.runFenced("payouts", first.epoch(), "p1");
		assertThat(target.written("p1")).isTrue();
		assertThat(store.release("payouts", A, first.epoch(), null)).isTrue();
		LeaseRecord second = store.tryAcquire("payouts", B, now, now.plus(HOUR)).orElseThrow();
		assertThatExceptionOfType(FencedOutException.class)
			.isThrownBy(() -> target.runFenced("payouts", first.epoch(), "p2"))
			.satisfies((ex) -> assertThat(ex.newerEpoch()).hasValue(second.epoch()));
		assertThat(target.written("p2")).as("the stale transaction wrote nothing").isFalse();
		target.runFenced("payouts", second.epoch(), "p3");
		assertThat(target.written("p3")).isTrue();
	}

	@Test
	void aGroupsFenceIsNotItsPartitions() {
		Target target = target();
		MembershipStore store = target.store();
		Instant now = store.serverTime().orElseThrow();
		LeaseRecord partition = store.tryAcquire("ledgers#3", A, now, now.plus(HOUR)).orElseThrow();
		assertThatExceptionOfType(FencedOutException.class)
			.isThrownBy(() -> target.runFenced("ledgers", partition.epoch(), "l1"));
		assertThat(target.written("l1")).isFalse();
	}

	@Test
	void outsideATransactionTheFenceRefusesRatherThanProtectNothing() {
		Target target = target();
		MembershipStore store = target.store();
		Instant now = store.serverTime().orElseThrow();
		LeaseRecord lease = store.tryAcquire("audits", A, now, now.plus(HOUR)).orElseThrow();
		assertThatIllegalStateException().isThrownBy(() -> target.joinOutsideATransaction("audits", lease.epoch()));
	}

}
