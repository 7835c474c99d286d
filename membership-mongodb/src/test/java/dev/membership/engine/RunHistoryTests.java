package dev.membership.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.membership.mongo.MongoRunHistory;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;
import dev.membership.spi.StoreException;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The run history as a node writes it: every run once, with its node, epoch and outcome;
 * one {@code update} command in an interval in which runs began or ended and none
 * otherwise; kept while the history cannot be written and written when it can (the oldest
 * dropped and counted past the buffer); the runs that ended in a graceful stop's drain
 * written as the node leaves.
 */
@ExtendWith(FastPolling.class)
class RunHistoryTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private EmbeddedMongo mongo;

	private TestCluster cluster;

	private MongoClient client;

	/**
	 * Writes to the runs collection (the history's own client; its index creation, once,
	 * aside).
	 */
	private final AtomicInteger historyCommands = new AtomicInteger();

	private final AtomicBoolean historyDown = new AtomicBoolean();

	/**
	 * While set, a write of the history waits for it (a slow server, a backlog to
	 * delete).
	 */
	private final java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CountDownLatch> stalled = new java.util.concurrent.atomic.AtomicReference<>();

	private final AtomicLong dropped = new AtomicLong();

	private RunHistoryStore history;

	@BeforeEach
	void setUp() {
		this.mongo = new EmbeddedMongo();
		this.client = MongoClients.create(MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(this.mongo.uri()))
			.addCommandListener(new CommandListener() {
				@Override
				public void commandStarted(CommandStartedEvent event) {
					if (!java.util.Set.of("find", "hello", "isMaster", "createIndexes")
						.contains(event.getCommandName())) {
						// the writes (reads are the test's)
						RunHistoryTests.this.historyCommands.incrementAndGet();
					}
				}
			})
			.build());
		RunHistoryStore mongoHistory = new MongoRunHistory(this.client.getDatabase("membership"), "runs",
				Duration.ofDays(1), 100, Duration.ofSeconds(1));
		this.history = new RunHistoryStore() {
			@Override
			public void initialize() {
				mongoHistory.initialize();
			}

			@Override
			public void save(List<RunRecord> records) {
				if (RunHistoryTests.this.historyDown.get()) {
					throw new StoreException("history down (injected)", null);
				}
				java.util.concurrent.CountDownLatch stall = RunHistoryTests.this.stalled.get();
				if (stall != null) {
					try {
						stall.await(10, java.util.concurrent.TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				mongoHistory.save(records);
			}

			@Override
			public List<RunRecord> find(RunQuery query) {
				return mongoHistory.find(query);
			}
		};
		ElectionMetrics counting = new ElectionMetrics() {
			@Override
			public void runsDropped(long count) {
				RunHistoryTests.this.dropped.addAndGet(count);
			}
		};
		this.cluster = this.mongo.cluster()
			.customizeNodes((builder) -> builder.runHistory(this.history, 5).metrics(counting));
	}

	@AfterEach
	void tearDown() {
		this.cluster.close();
		this.client.close();
		this.mongo.close();
	}

	@Test
	void everyRunIsWrittenOnceWithOneCommandPerIntervalAndNoneWithoutRuns() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader(GROUP));
		long epoch = node.currentTerm(GROUP).orElseThrow().epoch();
		// quiet: no runs, no commands
		await().atMost(Duration.ofSeconds(2)).until(() -> {
			int before = this.historyCommands.get();
			return quietFor(INTERVAL.multipliedBy(3), before);
		});

		// the history down while the four runs are made, so that no tick writes some of
		// them before the others: what a tick takes meanwhile goes back, and the first
		// write once it is up carries all four
		this.historyDown.set(true);
		int before = this.historyCommands.get();
		for (int i = 0; i < 3; i++) {
			assertThat(node.runIfLeader(GROUP, () -> {
			})).isTrue();
		}
		assertThatThrownBy(() -> node.runIfLeader(GROUP, () -> {
			throw new IllegalStateException("no disk\nat the second line");
		})).hasMessageStartingWith("no disk");
		this.historyDown.set(false);
		await().atMost(INTERVAL.multipliedBy(4))
			.until(() -> this.history.find(RunQuery.latest(10))
				.stream()
				.filter((run) -> run.outcome() != null)
				.count() == 4);
		assertThat(this.historyCommands.get() - before).as("commands for four runs written together").isEqualTo(1);

		List<RunRecord> runs = this.history.find(RunQuery.latest(10));
		assertThat(runs).allSatisfy((run) -> {
			assertThat(run.job()).isEqualTo("runIfLeader(default)");
			assertThat(run.nodeId()).isEqualTo("n1");
			assertThat(run.epoch()).isEqualTo(epoch);
			assertThat(run.endedAt()).isAfterOrEqualTo(run.startedAt());
		});
		assertThat(runs).extracting(RunRecord::outcome)
			.containsExactlyInAnyOrder(RunOutcome.SUCCESS, RunOutcome.SUCCESS, RunOutcome.SUCCESS, RunOutcome.ERROR);
		assertThat(runs).filteredOn((run) -> run.outcome() == RunOutcome.ERROR)
			.singleElement()
			.satisfies((run) -> assertThat(run.error()).isEqualTo("IllegalStateException: no disk"));
		int after = this.historyCommands.get();
		assertThat(quietFor(INTERVAL.multipliedBy(3), after)).as("no command in intervals without runs").isTrue();
	}

	@Test
	void runsWaitWhileTheHistoryIsDownTheOldestDroppedPastTheBuffer() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader(GROUP));
		this.historyDown.set(true);
		for (int i = 0; i < 7; i++) {
			node.runIfLeader(GROUP, () -> {
			});
		}
		// two lost, each counted once
		await().atMost(INTERVAL.multipliedBy(4)).until(() -> this.dropped.get() == 2);
		assertThat(this.history.find(RunQuery.latest(10))).isEmpty();
		this.historyDown.set(false);
		await().atMost(INTERVAL.multipliedBy(4)).until(() -> this.history.find(RunQuery.latest(10)).size() == 5);
		assertThat(this.dropped).as("nothing more dropped").hasValue(2);
		assertThat(node.isLeader(GROUP)).as("a failing history never fails a tick").isTrue();
	}

	@Test
	void aWriteOfTheHistoryThatHangsHoldsNoRenewalUp() {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader(GROUP));
		long epoch = node.currentTerm(GROUP).orElseThrow().epoch();
		java.util.concurrent.CountDownLatch stall = new java.util.concurrent.CountDownLatch(1);
		this.stalled.set(stall);
		node.runIfLeader(GROUP, () -> {
		});
		// the write hangs for three leases: the loop renews meanwhile, as it does not
		// wait for the history
		Duration lease = node.settings().leaseDuration();
		await().during(lease.multipliedBy(3))
			.atMost(lease.multipliedBy(4))
			.until(() -> node.currentTerm(GROUP).map((t) -> t.epoch() == epoch).orElse(false));
		this.stalled.set(null);
		stall.countDown();
		await().atMost(INTERVAL.multipliedBy(4)).until(() -> this.history.find(RunQuery.latest(10)).size() == 1);
	}

	@Test
	void aGracefulStopWritesTheRunsThatEndedInItsDrain() throws Exception {
		MembershipNode node = this.cluster.start("n1");
		await().atMost(Duration.ofSeconds(5)).until(() -> node.isLeader(GROUP));
		java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CompletableFuture<Boolean> run = java.util.concurrent.CompletableFuture
			.supplyAsync(() -> node.runIfLeader(GROUP, () -> {
				running.countDown();
				long until = System.nanoTime() + INTERVAL.multipliedBy(3).toNanos();
				while (System.nanoTime() < until) {
					Thread.onSpinWait(); // works through the stop's drain
				}
			}));
		assertThat(running.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		node.stop(Duration.ofSeconds(2));
		assertThat(run.get(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		assertThat(this.history.find(RunQuery.latest(10))).singleElement()
			.satisfies((r) -> assertThat(r.outcome()).isEqualTo(RunOutcome.SUCCESS));
	}

	/**
	 * Whether no command reached the history for {@code period} since {@code count} was
	 * seen.
	 */
	private boolean quietFor(Duration period, int count) {
		try {
			await().during(period).atMost(period.multipliedBy(2)).until(() -> this.historyCommands.get() == count);
			return true;
		}
		catch (org.awaitility.core.ConditionTimeoutException ex) {
			return false;
		}
	}

}
