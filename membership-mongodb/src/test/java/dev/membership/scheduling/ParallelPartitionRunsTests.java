package dev.membership.scheduling;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.Membership;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.ReactiveLeaderContext;
import dev.membership.spi.WorkRegistry;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ForEachOwnedPartition(concurrency = n)}: a node's partitions run at most n at
 * once, each under its own term on a thread of the starter's, and the call returns once
 * all ended. Runs meet at a latch or barrier that opens only when enough of them run at
 * the same time, so a sequential run would fail the test rather than merely be slower.
 */
@ExtendWith(FastPolling.class)
class ParallelPartitionRunsTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private ApplicationContextRunner solo() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/parallel" + databases.incrementAndGet(),
					"membership.node-id=solo", "membership.advertised-address=127.0.0.1:9199",
					"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
					"membership.liveness-window=300ms", "membership.partitions.tenants=6");
	}

	private static Membership owningAll(org.springframework.context.ApplicationContext context) {
		Membership membership = context.getBean(Membership.class);
		await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 6);
		return membership;
	}

	@Test
	void allSixPartitionsRunAtOnceEachUnderItsOwnTermAndTheCallReturnsWhenAllEnded() {
		solo().withBean(AllAtOnce.class).run((ctx) -> {
			Membership membership = owningAll(ctx);
			AllAtOnce jobs = ctx.getBean(AllAtOnce.class);
			jobs.rollup();
			assertThat(jobs.met()).as("every run saw the other five running").isEqualTo(6);
			((WorkRegistry) membership).ownedTerms("tenants")
				.forEach((term) -> assertThat(jobs.runs()).containsEntry(term.partition().getAsInt(), term.epoch()));
			assertThat(jobs.threads().values())
				.allSatisfy((name) -> assertThat(name).startsWith("membership-partition-"));
			assertThat(jobs.open()).as("no run still open after the call returned").isZero();
		});
	}

	@Test
	void neverMoreThanTheConcurrencyAtOnce() {
		solo().withBean(TwoAtATime.class).run((ctx) -> {
			owningAll(ctx);
			TwoAtATime jobs = ctx.getBean(TwoAtATime.class);
			jobs.rollup();
			assertThat(jobs.runs()).isEqualTo(6);
			assertThat(jobs.most()).isEqualTo(2);
		});
	}

	@Test
	void aFailingRunDoesNotStopTheOthersAndTheFirstFailureInPartitionOrderIsRethrown() {
		solo().withBean(FailingInParallel.class).run((ctx) -> {
			owningAll(ctx);
			FailingInParallel jobs = ctx.getBean(FailingInParallel.class);
			assertThatIllegalStateException().isThrownBy(jobs::rollup)
				.withMessage("partition 0")
				.satisfies((ex) -> assertThat(ex.getSuppressed()).hasSize(2));
			assertThat(jobs.attempts()).isEqualTo(6);
		});
	}

	@Test
	void aReactiveMethodSubscribesToThatManyPartitionsAtOnce() {
		solo().withBean(ReactiveAllAtOnce.class).run((ctx) -> {
			owningAll(ctx);
			ReactiveAllAtOnce jobs = ctx.getBean(ReactiveAllAtOnce.class);
			jobs.rollup().block(Duration.ofSeconds(10));
			assertThat(jobs.met()).isEqualTo(6);
		});
	}

	@Test
	void aConcurrencyBelowOneFailsStartup() {
		solo().withBean(NoneAtATime.class)
			.run((ctx) -> assertThat(ctx.getStartupFailure()).hasRootCauseInstanceOf(GuardMisuseException.class)
				.rootCause()
				.hasMessageContaining("has concurrency 0"));
	}

	static class AllAtOnce {

		private final CountDownLatch all = new CountDownLatch(6);

		private final AtomicInteger met = new AtomicInteger();

		private final AtomicInteger open = new AtomicInteger();

		private final Map<Integer, Long> runs = new ConcurrentHashMap<>();

		private final Map<Integer, String> threads = new ConcurrentHashMap<>();

		public int met() {
			return this.met.get();
		}

		public int open() {
			return this.open.get();
		}

		public Map<Integer, Long> runs() {
			return this.runs;
		}

		public Map<Integer, String> threads() {
			return this.threads;
		}

		@ForEachOwnedPartition(group = "tenants", concurrency = 8)
		public void rollup() throws InterruptedException {
			this.open.incrementAndGet();
			LeadershipTerm term = LeaderContext.currentTerm();
			this.runs.put(term.partition().getAsInt(), term.epoch());
			this.threads.put(term.partition().getAsInt(), Thread.currentThread().getName());
			this.all.countDown();
			if (this.all.await(10, TimeUnit.SECONDS)) {
				this.met.incrementAndGet();
			}
			this.open.decrementAndGet();
		}

	}

	static class TwoAtATime {

		private final CyclicBarrier pairs = new CyclicBarrier(2);

		private final AtomicInteger running = new AtomicInteger();

		private final AtomicInteger most = new AtomicInteger();

		private final AtomicInteger runs = new AtomicInteger();

		public int most() {
			return this.most.get();
		}

		public int runs() {
			return this.runs.get();
		}

		@ForEachOwnedPartition(group = "tenants", concurrency = 2)
		public void rollup() throws Exception {
			this.most.accumulateAndGet(this.running.incrementAndGet(), Math::max);
			// a pair runs together, or this times out
			this.pairs.await(10, TimeUnit.SECONDS);
			this.running.decrementAndGet();
			this.runs.incrementAndGet();
		}

	}

	static class FailingInParallel {

		private final AtomicInteger attempts = new AtomicInteger();

		public int attempts() {
			return this.attempts.get();
		}

		@ForEachOwnedPartition(group = "tenants", concurrency = 3)
		public void rollup() {
			int partition = LeaderContext.currentTerm().partition().getAsInt();
			this.attempts.incrementAndGet();
			if (partition % 2 == 0) {
				throw new IllegalStateException("partition " + partition);
			}
		}

	}

	static class ReactiveAllAtOnce {

		private final CountDownLatch all = new CountDownLatch(6);

		private final AtomicInteger met = new AtomicInteger();

		public int met() {
			return this.met.get();
		}

		@ForEachOwnedPartition(group = "tenants", concurrency = 6)
		public Mono<Void> rollup() {
			return ReactiveLeaderContext.currentTerm().publishOn(Schedulers.boundedElastic()).doOnNext((term) -> {
				this.all.countDown();
				try {
					if (this.all.await(10, TimeUnit.SECONDS)) {
						this.met.incrementAndGet();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}).then();
		}

	}

	static class NoneAtATime {

		@ForEachOwnedPartition(group = "tenants", concurrency = 0)
		public void rollup() {
		}

	}

}
