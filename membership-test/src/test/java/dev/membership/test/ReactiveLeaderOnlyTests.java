package dev.membership.test;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.ReactiveLeaderContext;
import dev.membership.operations.Requester;
import dev.membership.operations.Resign;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.spi.MembershipSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @LeaderOnly} on methods returning Mono and Flux: guarded per subscription,
 * cancelled on revoke.
 */
class ReactiveLeaderOnlyTests {

	private final SimulatedCluster cluster = SimulatedCluster
		.start(MembershipSettings.builder("node-a").groups(Set.of("reports")).build());

	private final Reports target = new Reports();

	private final Reports reports = this.cluster.leaderOnly(this.target);

	@AfterEach
	void close() {
		this.cluster.close();
	}

	private LeadershipTerm term() {
		return this.cluster.node().currentTerm("reports").orElseThrow();
	}

	/**
	 * No leader-only work holds the term: a resign ends it at once (without moving time,
	 * no drain timeout passes).
	 */
	private void assertNothingRuns() {
		LeadershipTerm term = term();
		this.cluster.node().operations().resign(new Resign("reports", Requester.of("test")));
		await().atMost(Duration.ofSeconds(5)).until(() -> !term.isValid());
	}

	@Test
	void aFollowerGetsAnEmptyPublisherAndTheMethodIsNotCalled() {
		this.cluster.revoke("reports");
		StepVerifier.create(this.reports.epochFromContext()).verifyComplete();
		StepVerifier.create(this.reports.numbers()).verifyComplete();
		assertThat(this.target.calls).hasValue(0);
	}

	@Test
	void theLeaderGetsItsTermInReactorsContextAndOnItsThread() {
		long epoch = term().epoch();
		StepVerifier.create(this.reports.epochFromContext()).expectNext(epoch).verifyComplete();
		StepVerifier.create(this.reports.numbers()).expectNext(epoch, epoch + 1, epoch + 2).verifyComplete();
		assertThat(this.target.termOnThread.get()).isSameAs(term());
		assertNothingRuns();
	}

	@Test
	void leadershipIsCheckedWhenSubscribedNotWhenCalled() {
		Mono<Long> assembledWhileLeading = this.reports.epochFromContext();
		this.cluster.revoke("reports");
		StepVerifier.create(assembledWhileLeading).verifyComplete();
		long epoch = this.cluster.elect("reports").epoch();
		StepVerifier.create(assembledWhileLeading).expectNext(epoch).verifyComplete();
		assertThat(this.target.calls).hasValue(1);
	}

	@Test
	void interruptOnRevokeCancelsTheSubscriptionAndTheHandOverWaitsForIt() {
		StepVerifier.create(this.reports.endless())
			.expectSubscription()
			.then(() -> this.cluster.revoke("reports"))
			.expectComplete()
			.verify(Duration.ofSeconds(30));
		assertThat(this.target.cancelled).isTrue();
	}

	@Test
	void aGracefulHandOverWaitsForASubscriptionThatWasNotToBeCancelled() {
		Sinks.One<String> result = Sinks.one();
		this.target.result = result;
		AtomicReference<String> received = new AtomicReference<>();
		this.reports.untilResult().subscribe(received::set);
		LeadershipTerm term = term();
		this.cluster.node().operations().resign(new Resign("reports", Requester.of("test")));
		assertThat(term.isEnding()).isTrue();
		assertThat(this.cluster.node().isLeader("reports")).isTrue();
		result.tryEmitValue("done");
		assertThat(received).hasValue("done");
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.cluster.node().isLeader("reports"));
	}

	@Test
	void aMethodThatThrowsGivesAnErrorAndEndsItsExecution() {
		StepVerifier.create(this.reports.failing()).verifyErrorMessage("no report today");
		assertNothingRuns();
	}

	public static class Reports {

		final AtomicInteger calls = new AtomicInteger();

		final AtomicReference<LeadershipTerm> termOnThread = new AtomicReference<>();

		final AtomicBoolean cancelled = new AtomicBoolean();

		volatile Sinks.One<String> result;

		@LeaderOnly(group = "reports")
		public Mono<Long> epochFromContext() {
			this.calls.incrementAndGet();
			this.termOnThread.set(LeaderContext.isActive() ? LeaderContext.currentTerm() : null);
			return ReactiveLeaderContext.currentTerm().map(LeadershipTerm::epoch);
		}

		@LeaderOnly(group = "reports")
		public Flux<Long> numbers() {
			this.calls.incrementAndGet();
			return ReactiveLeaderContext.currentTerm()
				.flatMapMany((term) -> Flux.range(0, 3).map((i) -> term.epoch() + i));
		}

		@LeaderOnly(group = "reports", interruptOnRevoke = true)
		public Flux<Long> endless() {
			return Flux.<Long>never().doOnCancel(() -> this.cancelled.set(true));
		}

		@LeaderOnly(group = "reports")
		public Mono<String> untilResult() {
			return this.result.asMono();
		}

		@LeaderOnly(group = "reports")
		public Mono<String> failing() {
			throw new IllegalStateException("no report today");
		}

	}

}
