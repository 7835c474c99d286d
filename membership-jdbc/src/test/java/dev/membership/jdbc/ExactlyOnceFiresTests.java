package dev.membership.jdbc;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.membership.engine.MembershipNode;
import dev.membership.leadership.FireMode;
import dev.membership.leadership.LeaderContext;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;
import dev.membership.scheduling.FireSchedules;
import dev.membership.spi.Fire;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.ScheduledJob;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The exactly-once recipe of the scheduled jobs' guide, on a real PostgreSQL server: a
 * job's effects and the claim of its fire commit in one transaction. A leader that
 * crashes after its transaction committed, before its run ended, leaves a fire the next
 * leader runs again (at least once, the default); the claim finds the committed one, and
 * the effect is there once. Every fire of the job has exactly one effect.
 */
class ExactlyOnceFiresTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final Duration PERIOD = Duration.ofMillis(300);

	private final JdbcClient jdbc = JdbcClient.create(postgres.dataSource());

	private final TransactionTemplate transactions = new TransactionTemplate(
			new JdbcTransactionManager(postgres.dataSource()));

	private final ExecutorService pool = Executors.newCachedThreadPool();

	private final List<MembershipNode> nodes = new ArrayList<>();

	/** Each fire's runs, by node: a run again after the crash shows here. */
	private final Map<Instant, List<String>> runs = new ConcurrentHashMap<>();

	private final AtomicBoolean crashed = new AtomicBoolean();

	@AfterEach
	void stop() {
		this.nodes.forEach((node) -> node.stop(Duration.ofSeconds(2)));
		this.pool.shutdownNow();
	}

	@Test
	void aFireRunAgainAfterACrashHasItsEffectsOnce() {
		JdbcStoreSettings settings = JdbcStoreSettings.defaults().withTablePrefix("once_");
		new JdbcMembershipStore(postgres.dataSource(), settings).initialize();
		this.jdbc.sql("DROP TABLE IF EXISTS settlement_fires, settlements, settlement_state").update();
		this.jdbc.sql("CREATE TABLE settlement_fires (job text, fire_at timestamptz, PRIMARY KEY (job, fire_at))")
			.update();
		this.jdbc.sql("CREATE TABLE settlements (fire_at timestamptz, node text)").update();
		this.jdbc.sql("CREATE TABLE settlement_state (id text PRIMARY KEY, last_fire timestamptz, fence bigint)")
			.update();
		MembershipNode first = start("n1", settings);
		await().atMost(Duration.ofSeconds(10)).until(() -> first.isLeader("default"));
		MembershipNode second = start("n2", settings);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.crashed.get());
		await().atMost(Duration.ofSeconds(10)).until(() -> second.isLeader("default"));
		Instant lastOfFirst = this.runs.entrySet()
			.stream()
			.filter((e) -> e.getValue().contains("n1"))
			.map(Map.Entry::getKey)
			.max(Instant::compareTo)
			.orElseThrow();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.runs.keySet().stream().filter((at) -> at.isAfter(lastOfFirst)).count() >= 3);
		// the fire the crash cut short ran again on the next leader, and its effects are
		// there once
		assertThat(this.runs.get(lastOfFirst)).containsExactly("n1", "n2");
		Instant lastRun = this.runs.keySet().stream().max(Instant::compareTo).orElseThrow();
		Instant firstRun = this.runs.keySet().stream().min(Instant::compareTo).orElseThrow();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			for (Instant at = firstRun; !at.isAfter(lastRun); at = at.plus(PERIOD)) {
				assertThat(this.jdbc.sql("SELECT count(*) FROM settlements WHERE fire_at = ?")
					.param(Timestamp.from(at))
					.query(Long.class)
					.single()).as("effects of the fire of %s", at).isEqualTo(1);
			}
		});
		System.out.printf("exactly once: fires %s to %s, the fire of %s ran on %s, its effects once%n", firstRun,
				lastRun, lastOfFirst, this.runs.get(lastOfFirst));
	}

	private MembershipNode start(String id, JdbcStoreSettings settings) {
		MembershipNode node = MembershipNode
			.builder(MembershipSettings.builder(id)
				.renewalInterval(Duration.ofMillis(100))
				.leaseDuration(Duration.ofMillis(500))
				.livenessWindow(Duration.ofMillis(400))
				.build(), new JdbcMembershipStore(postgres.dataSource(), settings))
			.advertisedAddress("127.0.0.1")
			.build();
		// a window of 10 s and every missed fire run: none is left to a note
		FirePolicy policy = new FirePolicy(Duration.ofSeconds(10), MissedFires.RUN_ALL, OverlappingFires.BUFFER_ONE,
				FireMode.RECORDED);
		node.schedule(new ScheduledJob("default", "settlements#settle", FireSchedules.fixedRate(PERIOD, Duration.ZERO),
				policy, (fire) -> this.pool.execute(() -> run(node, fire))));
		node.start();
		this.nodes.add(node);
		return node;
	}

	private void run(MembershipNode node, Fire fire) {
		LeadershipTerm.Execution execution = fire.tryBegin(false, Duration.ZERO);
		if (execution == null) {
			return;
		}
		this.runs.computeIfAbsent(fire.instant(), (at) -> new CopyOnWriteArrayList<>()).add(node.nodeId());
		// the guide's recipe: the claim and the effects, fenced, in one transaction
		this.transactions.executeWithoutResult((status) -> {
			Instant at = LeaderContext.currentFire().orElseThrow();
			int claimed = this.jdbc
				.sql("INSERT INTO settlement_fires (job, fire_at) VALUES ('settle', :fire) "
						+ "ON CONFLICT (job, fire_at) DO NOTHING")
				.param("fire", Timestamp.from(at))
				.update();
			if (claimed == 1) {
				this.jdbc.sql("INSERT INTO settlements (fire_at, node) VALUES (?, ?)")
					.params(Timestamp.from(at), node.nodeId())
					.update();
				JdbcEpochFence fence = JdbcEpochFence.of(LeaderContext.currentTerm());
				fence
					.upsert(this.jdbc, "settlement_state", Map.of("id", "settle"),
							Map.of("last_fire", Timestamp.from(at)))
					.orThrow(fence);
			}
		});
		if (node.nodeId().equals("n1") && this.runs.size() >= 4 && this.crashed.compareAndSet(false, true)) {
			// committed, and the run never ends: a crash between the commit and the end
			node.halt();
			return;
		}
		execution.close();
	}

}
