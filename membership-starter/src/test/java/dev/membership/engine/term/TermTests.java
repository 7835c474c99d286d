package dev.membership.engine.term;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * A term as leader code sees it and as the engine holds it: validity, work, the drain and
 * the end.
 */
class TermTests {

	private final AtomicLong now = new AtomicLong();

	private final Term term = new Term(Unit.group("reports"), 7, Duration.ofSeconds(10).toNanos(), this.now::get);

	@Test
	void validUntilItsDeadlineByTheNodesClockAndNeverAgainAfter() {
		assertThat(this.term.isValid()).isTrue();
		assertThat(this.term.remaining()).isEqualTo(Duration.ofSeconds(10));
		this.now.set(Duration.ofSeconds(10).toNanos());
		assertThat(this.term.isValid()).isFalse();
		// a renewal that lands too late
		assertThat(this.term.extend(Duration.ofSeconds(20).toNanos())).isFalse();
		this.now.set(Duration.ofSeconds(5).toNanos());
		assertThat(this.term.isValid()).isFalse();
		assertThat(this.term.remaining()).isZero();
	}

	@Test
	void aRenewalMovesTheDeadlineForward() {
		assertThat(this.term.extend(Duration.ofSeconds(15).toNanos())).isTrue();
		assertThat(this.term.extend(Duration.ofSeconds(12).toNanos())).isTrue();
		this.now.set(Duration.ofSeconds(14).toNanos());
		assertThat(this.term.isValid()).isTrue();
	}

	@Test
	void theEndIsClaimedOnceWhoeverEndsIt() {
		assertThat(this.term.end()).isTrue();
		assertThat(this.term.end()).isFalse();
		assertThat(this.term.isValid()).isFalse();
		assertThat(this.term.isEnding()).isTrue();
	}

	@Test
	void threadBoundWorkHasTheTermAsItsContextUntilClosed() {
		assertThat(LeaderContext.isActive()).isFalse();
		try (LeadershipTerm.Execution run = this.term.tryBegin("job", false)) {
			assertThat(run).isNotNull();
			assertThat(LeaderContext.currentTerm()).isSameAs(this.term);
		}
		assertThat(LeaderContext.isActive()).isFalse();
		assertThatIllegalStateException().isThrownBy(LeaderContext::currentTerm);
	}

	@Test
	void workOnNoThreadIsToldOnceOfAHandOverAndTheDrainWaitsUntilItIsClosedFromAnotherThread() throws Exception {
		AtomicInteger told = new AtomicInteger();
		LeadershipTerm.Execution execution = this.term.tryBeginDetached("pipeline", told::incrementAndGet, 0);
		assertThat(execution).isNotNull();
		assertThat(LeaderContext.isActive()).isFalse(); // not bound to this thread
		CompletableFuture<Void> drained = this.term.handOver();
		this.term.handOver();
		assertThat(told).hasValue(1);
		assertThat(drained).isNotDone();
		CompletableFuture.runAsync(execution::close).get(5, TimeUnit.SECONDS);
		assertThat(drained).isDone();
		this.term.end();
		assertThat(told).hasValue(1);
	}

	@Test
	void workClosedBeforeTheEndIsNotTold() {
		AtomicInteger told = new AtomicInteger();
		LeadershipTerm.Execution execution = this.term.tryBeginDetached("pipeline", told::incrementAndGet, 0);
		execution.close();
		execution.close();
		this.term.end();
		assertThat(told).hasValue(0);
		assertThat(this.term.runningWork()).isEmpty();
	}

	@Test
	void runningWorkIsWaitedForAndNoNewWorkStartsOnceHandingOver() throws Exception {
		LeadershipTerm.Execution execution = this.term.tryBeginDetached("pipeline", () -> {
		}, 0);
		CompletableFuture<Void> drained = this.term.handOver();
		assertThat(drained).isNotDone();
		assertThat(this.term.runningWork()).containsExactly("pipeline");
		assertThat(this.term.tryBegin("late", false)).isNull();
		CompletableFuture.runAsync(execution::close).get(5, TimeUnit.SECONDS);
		assertThat(drained).isDone();
	}

	@Test
	void aCallbackThatClosesItsExecutionAtOnceDoesNotDeadlock() {
		LeadershipTerm.Execution[] execution = new LeadershipTerm.Execution[1];
		execution[0] = this.term.tryBeginDetached("pipeline", () -> execution[0].close(), 0);
		assertThat(this.term.handOver()).isDone();
	}

	@Test
	void interruptibleWorkIsInterruptedAtTheEndAndTheFlagIsClearedWhenItCloses() {
		LeadershipTerm.Execution execution = this.term.tryBegin("job", true);
		this.term.end();
		assertThat(Thread.currentThread().isInterrupted()).isTrue();
		execution.close();
		assertThat(Thread.interrupted()).isFalse();
	}

	@Test
	void noCodeButTheStartersCanMakeATerm() {
		assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(MadeUp::new)
			.withMessageContaining("Only membership-starter makes leadership terms");
	}

	/**
	 * A term made up outside the starter (here: in its tests, another classes folder), as
	 * a user might try.
	 */
	static final class MadeUp extends LeadershipTerm {

		@Override
		public String group() {
			return "default";
		}

		@Override
		public long epoch() {
			return Long.MAX_VALUE;
		}

		@Override
		public Duration remaining() {
			return Duration.ofDays(1);
		}

		@Override
		public boolean isValid() {
			return true;
		}

		@Override
		public boolean isEnding() {
			return false;
		}

	}

}
