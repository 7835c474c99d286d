package dev.membership.jdbc.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.MembershipStatus;
import dev.membership.engine.MembershipNode;
import dev.membership.jdbc.EmbeddedPostgres;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcStoreSettings;
import dev.membership.jdbc.ServerProcesses;
import dev.membership.spi.MembershipSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Real faults of a real PostgreSQL server under three nodes, each on the store's own
 * bounded pool as the starter builds it (lease 1 s, a renewal every 200 ms, calls bounded
 * at 300 ms): the server frozen past the lease, a storm of {@code pg_terminate_backend},
 * a row lock held on the lease row, a switch to read-only, a fast and an immediate
 * restart. For each: never two nodes believe they lead at one instant (every belief
 * recorded by the engines on one clock), the cluster leads again within a lease and an
 * interval (and the calls' bound) once the fault heals, and every node's loop reaches the
 * store again (none left blocked). The application's pool exhausted is
 * {@code MembershipJdbcAutoConfigurationTests}'; PgBouncer's transaction mode,
 * {@code PgBouncerTransactionModeTests}.
 */
class PostgresFaultTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	static final Duration LEASE = Duration.ofSeconds(1);

	static final Duration INTERVAL = Duration.ofMillis(200);

	static final Duration CALL = Duration.ofMillis(300);

	/**
	 * After a fault heals: a lease, an interval, two calls, and room for two busy cores.
	 */
	static final Duration RECOVERY = LEASE.plus(INTERVAL).plus(CALL.multipliedBy(2)).plusMillis(1500);

	private final Beliefs beliefs = new Beliefs();

	private final List<MembershipNode> nodes = new ArrayList<>();

	private final List<MembershipConnections> pools = new ArrayList<>();

	private final JdbcClient admin = JdbcClient.create(postgres.dataSource());

	private ServerProcesses server;

	@BeforeEach
	void cluster() {
		this.server = new ServerProcesses(this.admin);
		new JdbcMembershipStore(postgres.dataSource(), settings()).initialize();
		this.admin.sql("DELETE FROM fault_leases").update();
		this.admin.sql("DELETE FROM fault_nodes").update();
		this.admin.sql("DELETE FROM fault_roster").update();
		for (int i = 1; i <= 3; i++) {
			start("n" + i);
		}
		leaderWithin(Duration.ofSeconds(10));
	}

	@AfterEach
	void stop() throws Exception {
		this.server.resume();
		this.nodes.forEach((node) -> node.halt());
		for (MembershipConnections pool : this.pools) {
			pool.destroy();
		}
	}

	@Test
	void theServerFrozenPastTheLease() {
		long frozen = System.nanoTime();
		this.server.freeze();
		// the leader cannot renew: its belief ends by its own clock, before the lease
		// could expire in the database
		await().atMost(LEASE.plusSeconds(2)).until(() -> this.nodes.stream().noneMatch((n) -> n.isLeader("default")));
		beliefEndedWithinALeaseOf(frozen);
		hold(LEASE); // frozen for twice the lease, in all
		this.server.resume();
		healed("frozen server");
	}

	@Test
	void aStormOfTerminatedBackends() {
		long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
		int storms = 0;
		while (System.nanoTime() < end) {
			storms += this.admin.sql("SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
					+ "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
				.query(Long.class)
				.single();
			hold(Duration.ofMillis(50));
		}
		assertThat(storms).isPositive();
		healed("terminate storm");
	}

	@Test
	void aRowLockHeldOnTheLeaseRow() throws Exception {
		try (var connection = postgres.dataSource().getConnection()) {
			connection.setAutoCommit(false);
			long locked = System.nanoTime();
			try (var lock = connection
				.prepareStatement("SELECT * FROM fault_leases WHERE name = 'default' FOR UPDATE")) {
				lock.executeQuery().close();
			}
			await().atMost(LEASE.plusSeconds(2))
				.until(() -> this.nodes.stream().noneMatch((n) -> n.isLeader("default")));
			beliefEndedWithinALeaseOf(locked);
			hold(LEASE);
			// the server gives a wait up as the node's call does: no backend left waiting
			// for the lock
			assertThat(this.admin
				.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND "
						+ "clock_timestamp() - query_start > ?::interval")
				.param(CALL.multipliedBy(2).toMillis() + " ms")
				.query(Long.class)
				.single())
				.as("backends waiting for the lease row longer than two calls: %s",
						this.admin.sql("SELECT left(query, 60) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
							.query(String.class)
							.list())
				.isZero();
			connection.rollback();
		}
		healed("row lock on the lease row");
	}

	@Test
	void aSwitchToReadOnly() {
		this.admin.sql("ALTER SYSTEM SET default_transaction_read_only = on").update();
		this.admin.sql("SELECT pg_reload_conf()").query(Boolean.class).single();
		try {
			await().atMost(LEASE.plusSeconds(3))
				.until(() -> this.nodes.stream().noneMatch((n) -> n.isLeader("default")));
		}
		finally {
			this.admin.sql("ALTER SYSTEM RESET default_transaction_read_only").update();
			this.admin.sql("SELECT pg_reload_conf()").query(Boolean.class).single();
		}
		healed("read-only server");
	}

	@Test
	void aFastRestart() {
		this.server.restart("fast");
		serverUp();
		healed("fast restart");
	}

	@Test
	void anImmediateRestart() {
		// crash recovery: only what was committed is there
		this.server.restart("immediate");
		serverUp();
		healed("immediate restart");
	}

	/**
	 * The server down for 6 s, as a slow restart or a failover would leave it: the nodes
	 * are back within the bound once it answers, not when HikariCP's connection creator,
	 * whose pauses between attempts double to 5 s while the server refuses it, next
	 * tries.
	 */
	@Test
	void aServerDownForSixSeconds() {
		this.server.stop("fast");
		hold(Duration.ofSeconds(6));
		this.server.start(this.server.dataDirectory(), null);
		serverUp();
		healed("server down for 6 s");
	}

	/**
	 * The server answers again after a restart (its start and, after an immediate stop,
	 * its recovery).
	 */
	private void serverUp() {
		await().atMost(Duration.ofSeconds(60))
			.ignoreExceptions()
			.until(() -> this.admin.sql("SELECT 1").query(Integer.class).single() == 1);
	}

	/**
	 * Once the fault is over: a leader within the bound, every node's heartbeat again,
	 * never two believers.
	 */
	private void healed(String fault) {
		long healed = System.nanoTime();
		leaderWithin(RECOVERY);
		Duration leaderless = Duration.ofNanos(System.nanoTime() - healed);
		// every loop reaches the store again (a leader's renewals keep it live, the
		// others' heartbeats): none blocked
		await().atMost(RECOVERY).untilAsserted(() -> assertThat(this.nodes).allSatisfy((node) -> {
			MembershipStatus status = node.status();
			assertThat(status.consecutiveFailures()).as("%s: failed calls in a row", node.nodeId()).isZero();
			assertThat(status.lastHeartbeatAge()).as("%s: since its last heartbeat or renewal", node.nodeId())
				.isLessThan(Duration.ofNanos(System.nanoTime() - healed));
		}));
		assertThat(this.beliefs.overlaps()).as("two believers at one instant").isZero();
		System.out.printf("%s: a leader %d ms after it healed; %d beliefs, none overlapping%n", fault,
				leaderless.toMillis(), this.beliefs.count());
	}

	/**
	 * The leader's belief, as its engine ended it on the shared clock, ended less than a
	 * lease after the fault began: its last renewal came before the fault, so its lease
	 * could not expire in the database any earlier.
	 */
	private void beliefEndedWithinALeaseOf(long faultNanos) {
		assertThat(this.beliefs.lastEndNanos() - faultNanos).as("nanos from the fault to the belief's end")
			.isPositive()
			.isLessThan(LEASE.toNanos());
	}

	/**
	 * Keeps a fault on for {@code duration}: the fault's length, not a wait for something
	 * to happen.
	 */
	private static void hold(Duration duration) {
		java.util.concurrent.locks.LockSupport.parkNanos(duration.toNanos());
	}

	private void leaderWithin(Duration bound) {
		await().atMost(bound).until(() -> this.nodes.stream().anyMatch((n) -> n.isLeader("default")));
	}

	private void start(String id) {
		MembershipJdbcProperties jdbc = new MembershipJdbcProperties();
		jdbc.setUrl("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres");
		jdbc.setUsername("postgres");
		MembershipConnections connections = MembershipConnections.of(postgres.dataSource(), null, jdbc, CALL);
		this.pools.add(connections);
		MembershipNode node = MembershipNode
			.builder(MembershipSettings.builder(id)
				.renewalInterval(INTERVAL)
				.leaseDuration(LEASE)
				.livenessWindow(Duration.ofMillis(800))
				.build(), new JdbcMembershipStore(connections.dataSource(), settings()))
			.observer(this.beliefs)
			.advertisedAddress("127.0.0.1")
			.build();
		node.start();
		this.nodes.add(node);
	}

	private static JdbcStoreSettings settings() {
		return new JdbcStoreSettings("fault_", CALL, true);
	}

}
