package dev.membership.test;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.FencedOutException;
import dev.membership.leadership.FencedWrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What every store's row fence must do, as JUnit 5 tests, in the terms of
 * {@link FencedWrite}: extend this class and give {@link #target()} a fresh table or
 * collection written through the store's fence. MongoDB's {@code EpochFence} and
 * PostgreSQL's {@code JdbcEpochFence} pass it.
 */
public abstract class FencedWriteContract {

	private static final String GROUP = "billing";

	/**
	 * A fresh table or collection of rows (documents) with an id, a {@code customer} and
	 * a {@code value}.
	 */
	protected abstract Target target();

	/** The fenced writes of one store, on one table or collection. */
	protected interface Target {

		/**
		 * Inserts row {@code id} with {@code value}, or updates it, fenced with
		 * {@code epoch} of {@code group}.
		 */
		FencedWrite upsert(String group, long epoch, String id, String value);

		/**
		 * Sets {@code value} on every row of {@code customer}, fenced with {@code epoch}
		 * of {@code group}.
		 */
		FencedWrite updateCustomer(String group, long epoch, String customer, String value);

		/** Inserts a row without a fence, as rows written before fencing began are. */
		void insertUnfenced(String id, String customer, String value);

		/** The value of row {@code id}, or null when there is none. */
		@Nullable String value(String id);

		/**
		 * The store's own {@code orThrow} of {@code write}, with the fence of
		 * {@code epoch} of {@code group}.
		 */
		void orThrow(String group, long epoch, FencedWrite write);

	}

	@Test
	void anOlderEpochAfterANewerOneIsFencedOutChangesNothingAndNamesTheNewer() {
		Target target = target();
		assertThat(target.upsert(GROUP, 5, "invoice-1", "sent").applied()).isTrue();
		FencedWrite late = target.upsert(GROUP, 4, "invoice-1", "void");
		assertThat(late.applied()).isFalse();
		assertThat(late.isFencedOut()).isTrue();
		assertThat(late.isPartial()).isFalse();
		assertThat(late.supersededBy()).hasValue(5);
		assertThat(target.value("invoice-1")).isEqualTo("sent");
		assertThatExceptionOfType(FencedOutException.class).isThrownBy(() -> target.orThrow(GROUP, 4, late))
			.satisfies((ex) -> {
				assertThat(ex.group()).isEqualTo(GROUP);
				assertThat(ex.epoch()).isEqualTo(4);
				assertThat(ex.newerEpoch()).hasValue(5);
			});
	}

	@Test
	void theSameEpochWritesAgainAndANewerOneTakesOver() {
		Target target = target();
		assertThat(target.upsert(GROUP, 4, "invoice-1", "draft").applied()).isTrue();
		assertThat(target.upsert(GROUP, 4, "invoice-1", "sent").applied()).isTrue();
		FencedWrite newer = target.upsert(GROUP, 6, "invoice-1", "paid");
		assertThat(newer.applied()).isTrue();
		assertThat(newer.supersededBy()).isEmpty();
		target.orThrow(GROUP, 6, newer);
		assertThat(target.value("invoice-1")).isEqualTo("paid");
	}

	@Test
	void aRowWrittenWithoutAFenceCountsAsOlder() {
		Target target = target();
		target.insertUnfenced("invoice-2", "c7", "draft");
		assertThat(target.upsert(GROUP, 1, "invoice-2", "sent").applied()).isTrue();
		assertThat(target.value("invoice-2")).isEqualTo("sent");
	}

	@Test
	void aWriteOfSeveralRowsSomeOfWhichANewerTermWroteIsPartialNeverASuccess() {
		Target target = target();
		target.insertUnfenced("invoice-3", "c7", "draft");
		target.insertUnfenced("invoice-4", "c7", "draft");
		assertThat(target.upsert(GROUP, 3, "invoice-3", "sent").applied()).isTrue();
		FencedWrite stale = target.updateCustomer(GROUP, 2, "c7", "void");
		assertThat(stale.isPartial()).isTrue();
		assertThat(stale.applied()).isFalse();
		assertThat(stale.isFencedOut()).isFalse();
		assertThat(stale.supersededBy()).hasValue(3);
		assertThat(target.value("invoice-3")).as("the newer term's row").isEqualTo("sent");
		assertThatExceptionOfType(FencedOutException.class).isThrownBy(() -> target.orThrow(GROUP, 2, stale));
		FencedWrite current = target.updateCustomer(GROUP, 3, "c7", "paid");
		assertThat(current.applied()).isTrue();
		assertThat(target.value("invoice-3")).isEqualTo("paid");
		assertThat(target.value("invoice-4")).isEqualTo("paid");
	}

	@Test
	void aWriteThatSelectsNothingIsNeitherAppliedNorFencedOut() {
		Target target = target();
		FencedWrite nothing = target.updateCustomer(GROUP, 2, "nobody", "void");
		assertThat(nothing.applied()).isFalse();
		assertThat(nothing.isFencedOut()).isFalse();
		assertThat(nothing.isPartial()).isFalse();
	}

}
