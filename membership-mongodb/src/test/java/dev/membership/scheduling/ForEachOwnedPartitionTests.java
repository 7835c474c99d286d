package dev.membership.scheduling;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.spi.WorkRegistry;
import dev.membership.Membership;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.ReactiveLeaderContext;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith(FastPolling.class)
class ForEachOwnedPartitionTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private ApplicationContextRunner runner(String database, String nodeId) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
					MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
					LeaderOnlyAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/" + database, "membership.node-id=" + nodeId,
					"membership.advertised-address=127.0.0.1:" + (9100 + Math.abs(nodeId.hashCode() % 100)),
					"membership.renewal-interval=100ms", "membership.lease-duration=500ms",
					"membership.liveness-window=300ms", "membership.partitions.tenants=6");
	}

	@Test
	void oneCallRunsTheMethodOncePerOwnedPartitionEachUnderItsTerm() {
		String db = "perpartition" + databases.incrementAndGet();
		runner(db, "a").withBean(Rollups.class).run((a) -> runner(db, "b").withBean(Rollups.class).run((b) -> {
			Membership ma = a.getBean(Membership.class);
			Membership mb = b.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> ma.partitions("tenants").owned().size() == 3
						&& mb.partitions("tenants").owned().size() == 3);
			Rollups ra = a.getBean(Rollups.class);
			Rollups rb = b.getBean(Rollups.class);
			ra.rollup();
			rb.rollup();
			List<LeadershipTerm> ownedByA = ((WorkRegistry) ma).ownedTerms("tenants");
			assertThat(ra.runs()).hasSize(3);
			assertThat(rb.runs()).hasSize(3);
			// each run saw its own partition's term, and the two nodes ran disjoint
			// partitions covering all six
			assertThat(ra.runs().keySet()).doesNotContainAnyElementsOf(rb.runs().keySet());
			assertThat(ra.runs().keySet()).hasSize(3);
			assertThat(rb.runs().keySet()).hasSize(3);
			ownedByA.forEach((term) -> assertThat(ra.runs()).containsEntry(term.partition().getAsInt(), term.epoch()));
		}));
	}

	@Test
	void aRunThatThrowsDoesNotStopTheOthersAndTheFirstFailureIsRethrown() {
		runner("perpartition" + databases.incrementAndGet(), "solo").withBean(Failing.class).run((ctx) -> {
			Membership membership = ctx.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 6);
			Failing failing = ctx.getBean(Failing.class);
			org.assertj.core.api.Assertions.assertThatIllegalStateException()
				.isThrownBy(failing::rollup)
				.withMessage("partition 0")
				.satisfies((ex) -> assertThat(ex.getSuppressed()).hasSize(2));
			assertThat(failing.attempts()).containsExactly(0, 1, 2, 3, 4, 5);
		});
	}

	@Test
	void aReactiveMethodIsSubscribedOncePerOwnedPartitionEachWithItsTermInTheContext() {
		runner("perpartition" + databases.incrementAndGet(), "solo").withBean(ReactiveRollups.class).run((ctx) -> {
			Membership membership = ctx.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 6);
			ReactiveRollups rollups = ctx.getBean(ReactiveRollups.class);
			Mono<Void> once = rollups.rollup();
			assertThat(rollups.runs()).as("nothing before the subscription").isEmpty();
			once.block(Duration.ofSeconds(5));
			assertThat(rollups.runs()).containsOnlyKeys(0, 1, 2, 3, 4, 5);
			((WorkRegistry) membership).ownedTerms("tenants")
				.forEach((term) -> assertThat(rollups.runs()).containsEntry(term.partition().getAsInt(), term.epoch()));
			assertThat(rollups.partitions().collectList().block(Duration.ofSeconds(5))).containsExactly(0, 1, 2, 3, 4,
					5);
		});
	}

	@Test
	void aGroupThatIsNotPartitionedFailsStartupNamingTheProperty() {
		runner("perpartition" + databases.incrementAndGet(), "solo").withBean(Misnamed.class).run((ctx) -> {
			assertThat(ctx).hasFailed();
			assertThat(ctx.getStartupFailure()).isInstanceOf(GuardMisuseException.class)
				.hasMessageContaining("membership.partitions.tenant=<count>");
		});
	}

	@Test
	void aMethodThatReturnsAValueFailsStartup() {
		runner("perpartition" + databases.incrementAndGet(), "solo").withBean(Returning.class).run((ctx) -> {
			assertThat(ctx).hasFailed();
			assertThat(ctx.getStartupFailure()).hasRootCauseInstanceOf(GuardMisuseException.class)
				.rootCause()
				.hasMessageContaining("Make Returning.rollup return void");
		});
	}

	static class Rollups {

		private final Map<Integer, Long> runs = new ConcurrentHashMap<>();

		// through the proxy, whose own fields are not the bean's
		public Map<Integer, Long> runs() {
			return this.runs;
		}

		@ForEachOwnedPartition(group = "tenants")
		public void rollup() {
			LeadershipTerm term = LeaderContext.currentTerm();
			this.runs.put(term.partition().getAsInt(), term.epoch());
		}

	}

	static class ReactiveRollups {

		private final Map<Integer, Long> runs = new ConcurrentHashMap<>();

		public Map<Integer, Long> runs() {
			return this.runs;
		}

		@ForEachOwnedPartition(group = "tenants")
		public Mono<Void> rollup() {
			return ReactiveLeaderContext.currentTerm()
				.doOnNext((term) -> this.runs.put(term.partition().getAsInt(), term.epoch()))
				.then();
		}

		@ForEachOwnedPartition(group = "tenants")
		public Flux<Integer> partitions() {
			return ReactiveLeaderContext.currentTerm().map((term) -> term.partition().getAsInt()).flux();
		}

	}

	static class Failing {

		private final List<Integer> attempts = new CopyOnWriteArrayList<>();

		public List<Integer> attempts() {
			return this.attempts;
		}

		@ForEachOwnedPartition(group = "tenants")
		public void rollup() {
			int partition = LeaderContext.currentTerm().partition().getAsInt();
			this.attempts.add(partition);
			if (partition % 2 == 0) {
				throw new IllegalStateException("partition " + partition);
			}
		}

	}

	static class Misnamed {

		@ForEachOwnedPartition(group = "tenant")
		public void rollup() {
		}

	}

	static class Returning {

		@ForEachOwnedPartition(group = "tenants")
		public int rollup() {
			return 1;
		}

	}

}
