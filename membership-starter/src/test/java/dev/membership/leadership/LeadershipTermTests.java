package dev.membership.leadership;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Work registered with a callback instead of a thread: what reactive leader-only work uses. */
class LeadershipTermTests {

	private final LeadershipTerm.Control control = LeadershipTerm.start("reports", 7, Long.MAX_VALUE, () -> 0L);

	@Test
	void workOnNoThreadIsToldOnceOfAHandOverAndTheDrainWaitsUntilItIsClosedFromAnotherThread() throws Exception {
		AtomicInteger told = new AtomicInteger();
		LeadershipTerm.Execution execution = this.control.term().tryBegin("pipeline", told::incrementAndGet);
		assertThat(execution).isNotNull();
		CompletableFuture<Void> drained = this.control.handOver();
		this.control.handOver();
		assertThat(told).hasValue(1);
		assertThat(drained).isNotDone();
		CompletableFuture.runAsync(execution::close).get(5, TimeUnit.SECONDS);
		assertThat(drained).isDone();
		this.control.end();
		assertThat(told).hasValue(1);
	}

	@Test
	void workClosedBeforeTheEndIsNotTold() {
		AtomicInteger told = new AtomicInteger();
		LeadershipTerm.Execution execution = this.control.term().tryBegin("pipeline", told::incrementAndGet);
		execution.close();
		execution.close();
		this.control.end();
		assertThat(told).hasValue(0);
		assertThat(this.control.term().runningWork()).isEmpty();
	}

	@Test
	void workThatAskedNotToBeToldIsStillWaitedFor() throws Exception {
		LeadershipTerm.Execution execution = this.control.term().tryBegin("pipeline", (Runnable) null);
		CompletableFuture<Void> drained = this.control.handOver();
		assertThat(drained).isNotDone();
		assertThat(this.control.term().tryBegin("late", (Runnable) null)).isNull();
		CompletableFuture.runAsync(execution::close).get(5, TimeUnit.SECONDS);
		assertThat(drained).isDone();
	}

	@Test
	void aCallbackThatClosesItsExecutionAtOnceDoesNotDeadlock() {
		LeadershipTerm.Execution[] execution = new LeadershipTerm.Execution[1];
		execution[0] = this.control.term().tryBegin("pipeline", () -> execution[0].close());
		assertThat(this.control.handOver()).isDone();
	}

}
