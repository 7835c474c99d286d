package dev.membership.engine.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A loop job runs its steps in order, ends exactly once on every path, and never grows
 * the stack.
 */
class LoopJobTests {

	private final List<String> seen = new ArrayList<>();

	@Test
	void stepsThatGoOnAtOnceRunInOrderWithoutNesting() {
		AtomicInteger deepest = new AtomicInteger();
		LoopJob job = new LoopJob("long", (ex) -> this.seen.add("failed"));
		for (int i = 0; i < 20_000; i++) {
			boolean sample = i % 5_000 == 4_999;
			job.then((j) -> {
				if (sample) {
					deepest.accumulateAndGet(Thread.currentThread().getStackTrace().length, Math::max);
				}
				j.next();
			});
		}
		job.onEnd(() -> this.seen.add("ended")).start();
		assertThat(this.seen).containsExactly("ended");
		assertThat(deepest.get()).isLessThan(100);
	}

	@Test
	void aStepThatGoesOnLaterContinuesTheJob() {
		List<LoopJob> waiting = new ArrayList<>();
		LoopJob job = new LoopJob("async", (ex) -> this.seen.add("failed"));
		job.then((j) -> {
			this.seen.add("one");
			waiting.add(j); // a reply to come
		}).then((j) -> {
			this.seen.add("two");
			j.next();
		}).onEnd(() -> this.seen.add("ended")).start();
		assertThat(this.seen).containsExactly("one");
		waiting.get(0).next();
		assertThat(this.seen).containsExactly("one", "two", "ended");
	}

	@Test
	void aFailureSkipsTheRestAndEndsOnce() {
		LoopJob job = new LoopJob("failing", (ex) -> this.seen.add("failed: " + ex.getMessage()));
		job.then((j) -> j.fail(new IllegalStateException("down"))).then((j) -> {
			this.seen.add("never");
			j.next();
		}).onEnd(() -> this.seen.add("ended")).start();
		job.next(); // a late reply changes nothing
		assertThat(this.seen).containsExactly("failed: down", "ended");
	}

	@Test
	void anErrorEndsTheJobBeforeItGoesOn() {
		LoopJob job = new LoopJob("erring", (ex) -> this.seen.add("failed"));
		job.then((j) -> {
			throw new StackOverflowError("deep");
		}).onEnd(() -> this.seen.add("ended"));
		assertThatThrownBy(job::start).isInstanceOf(StackOverflowError.class);
		assertThat(this.seen).containsExactly("failed", "ended");
	}

}
