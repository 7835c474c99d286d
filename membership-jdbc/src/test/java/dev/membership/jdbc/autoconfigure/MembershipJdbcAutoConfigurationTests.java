package dev.membership.jdbc.autoconfigure;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.time.Duration;

import javax.sql.DataSource;

import com.mongodb.client.MongoClients;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.mongodb.MongoDatabaseFactory;
import org.springframework.data.mongodb.core.SimpleMongoClientDatabaseFactory;

import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.jdbc.EmbeddedPostgres;
import dev.membership.jdbc.JdbcBroadcastKeys;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcRunHistory;
import dev.membership.Membership;
import dev.membership.engine.MembershipNode;
import dev.membership.autoconfigure.AmbiguousMembershipStoreException;
import dev.membership.autoconfigure.StoreBroadcastKeys;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.spi.MembershipStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/** Which store an application gets, and the startup failures that name the fix. */
class MembershipJdbcAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(MembershipJdbcAutoConfiguration.class, MembershipAutoConfiguration.class))
		.withPropertyValues("membership.renewal-interval=1s", "membership.lease-duration=3s",
				"membership.liveness-window=2s", "membership.jdbc.table-prefix=auto_");

	@Test
	void anApplicationWithADataSourceAloneKeepsTheClusterInPostgresAndLeads() {
		this.runner.withBean(DataSource.class, postgres::dataSource).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(MembershipStore.class)).isInstanceOf(JdbcMembershipStore.class);
			assertThat(context.getBean(StoreBroadcastKeys.class).keys()).isInstanceOf(JdbcBroadcastKeys.class);
			assertThat(context).hasSingleBean(JdbcRunHistory.class);
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> membership.isLeader("default"));
		});
	}

	@Test
	void theStoresKeysAreThereEvenWithKeysConfiguredSoThatTheChoiceIsMadeAtStartupNotAtBuildTime() {
		// an ahead-of-time image fixes its conditions when it is built; configured keys
		// win in the starter's bean
		this.runner.withBean(DataSource.class, postgres::dataSource)
			.withPropertyValues("membership.broadcast.keys[0]=" + "k".repeat(43))
			.run((context) -> assertThat(context).hasSingleBean(StoreBroadcastKeys.class));
	}

	@Test
	void withBothDatabasesStartupFailsUntilThePropertyChooses() {
		ApplicationContextRunner both = this.runner
			.withConfiguration(AutoConfigurations.of(MembershipMongoAutoConfiguration.class))
			.withBean(DataSource.class, postgres::dataSource)
			.withBean(MongoDatabaseFactory.class,
					() -> new SimpleMongoClientDatabaseFactory(MongoClients.create("mongodb://127.0.0.1:1"), "x"));
		both.run((context) -> assertThat(context).getFailure()
			.rootCause()
			.isInstanceOf(AmbiguousMembershipStoreException.class)
			.hasMessageContaining("membership.store"));
		both.withPropertyValues("membership.store=jdbc")
			.run((context) -> assertThat(context.getBean(MembershipStore.class))
				.isInstanceOf(JdbcMembershipStore.class));
		both.withPropertyValues("membership.store=mongodb")
			.run((context) -> assertThat(context.getBean(MembershipStore.class))
				.isInstanceOf(MongoMembershipStore.class));
	}

	@Test
	void theJdbcStoreChosenWithoutADataSourceFailsAndSaysWhatIsMissing() {
		this.runner.withPropertyValues("membership.store=jdbc")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("membership.store=jdbc, and there is no DataSource bean"));
	}

	@Test
	void anotherDatabaseThanPostgresFailsTheStartup() throws Exception {
		DataSource mysql = mock(DataSource.class);
		Connection connection = mock(Connection.class);
		DatabaseMetaData meta = mock(DatabaseMetaData.class);
		given(mysql.getConnection()).willReturn(connection);
		given(connection.getMetaData()).willReturn(meta);
		given(meta.getDatabaseProductName()).willReturn("MySQL");
		given(meta.getDatabaseMajorVersion()).willReturn(8);
		this.runner.withBean(DataSource.class, () -> mysql)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("runs on PostgreSQL 14 or later, and the DataSource is MySQL 8"));
	}

	@Test
	void connectionsWithAutoCommitOffFailTheStartup() {
		com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource();
		pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres");
		pool.setUsername("postgres");
		pool.setAutoCommit(false);
		try {
			// on the application's pool: the store's own connections are always
			// auto-commit
			this.runner.withBean(DataSource.class, () -> pool)
				.withPropertyValues("membership.jdbc.pool.shared=true")
				.run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("auto-commit off"));
		}
		finally {
			pool.close();
		}
	}

	@Test
	void commitsAcknowledgedBeforeTheyAreDurableFailTheStartup() {
		PGSimpleDataSource asynchronous = new PGSimpleDataSource();
		asynchronous.setServerNames(new String[] { "127.0.0.1" });
		asynchronous.setPortNumbers(new int[] { postgres.port() });
		asynchronous.setDatabaseName("postgres");
		asynchronous.setUser("postgres");
		asynchronous.setOptions("-c synchronous_commit=off");
		this.runner.withBean(DataSource.class, () -> asynchronous)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("synchronous_commit is off"));
	}

	@Test
	void aReadOnlyServerFailsTheStartupAndSaysSo() {
		PGSimpleDataSource readOnly = new PGSimpleDataSource();
		readOnly.setServerNames(new String[] { "127.0.0.1" });
		readOnly.setPortNumbers(new int[] { postgres.port() });
		readOnly.setDatabaseName("postgres");
		readOnly.setUser("postgres");
		readOnly.setOptions("-c default_transaction_read_only=on");
		this.runner.withBean(DataSource.class, () -> readOnly)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("read-only (default_transaction_read_only = on)"));
	}

	@Test
	void theStoreKeepsItsLeaseWhileTheApplicationHoldsEveryConnectionOfItsPool() throws Exception {
		com.zaxxer.hikari.HikariDataSource application = applicationPool();
		try {
			this.runner.withBean(DataSource.class, () -> application).run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(MembershipConnections.class).isShared()).isFalse();
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> membership.isLeader("default"));
				// the store's own connections say whose they are
				assertThat(org.springframework.jdbc.core.simple.JdbcClient.create(postgres.dataSource())
					.sql("SELECT DISTINCT application_name FROM pg_stat_activity WHERE application_name LIKE "
							+ "'membership%'")
					.query(String.class)
					.list()).contains("membership");
				MembershipNode node = context.getBean(MembershipNode.class);
				// two leases long (-Dmembership.jdbc.exhausted=PT35S: past HikariCP's own
				// 30 s connectionTimeout)
				Duration exhausted = Duration.parse(System.getProperty("membership.jdbc.exhausted", "PT6S"));
				// the application's only connection
				try (Connection held = application.getConnection()) {
					// renewals and heartbeats on the store's own pool go on
					await().during(exhausted)
						.atMost(exhausted.plusSeconds(2))
						.until(() -> membership.isLeader("default") && node.status().consecutiveFailures() == 0
								&& node.status().lastHeartbeatAge().compareTo(Duration.ofSeconds(3)) < 0);
				}
			});
		}
		finally {
			application.close();
		}
	}

	@Test
	void theRunHistoryAndTheKeysHaveAConnectionApartFromTheLoops() throws Exception {
		com.zaxxer.hikari.HikariDataSource application = applicationPool();
		try {
			this.runner.withBean(DataSource.class, () -> application).run((context) -> {
				MembershipConnections connections = context.getBean(MembershipConnections.class);
				assertThat(connections.historyDataSource()).isNotSameAs(connections.dataSource());
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> membership.isLeader("default"));
				// a history write, or an actuator's read of it, that holds its connection
				// holds no renewal up
				try (Connection held = connections.historyDataSource().getConnection()) {
					await().during(Duration.ofSeconds(4))
						.atMost(Duration.ofSeconds(6))
						.until(() -> membership.isLeader("default"));
				}
			});
		}
		finally {
			application.close();
		}
	}

	@Test
	void onTheApplicationsPoolTheStoreLosesItsLeaseWhenTheApplicationHoldsEveryConnection() throws Exception {
		com.zaxxer.hikari.HikariDataSource application = applicationPool();
		try {
			this.runner.withBean(DataSource.class, () -> application)
				.withPropertyValues("membership.jdbc.pool.shared=true")
				.run((context) -> {
					assertThat(context.getBean(MembershipConnections.class).isShared()).isTrue();
					Membership membership = context.getBean(Membership.class);
					await().atMost(Duration.ofSeconds(10)).until(() -> membership.isLeader("default"));
					try (Connection held = application.getConnection()) {
						await().atMost(Duration.ofSeconds(8)).until(() -> !membership.isLeader("default"));
					}
				});
		}
		finally {
			application.close();
		}
	}

	@Test
	void anotherDatabaseForTheClusterOnTheApplicationsPoolFailsTheStartupInsteadOfBeingIgnored() {
		this.runner.withBean(DataSource.class, postgres::dataSource)
			.withPropertyValues("membership.jdbc.url=jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres",
					"membership.jdbc.pool.shared=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("membership.jdbc.url names the membership database")
				.hasMessageContaining("membership.jdbc.pool.shared=true"));
	}

	@Test
	void anOperationTimeoutNotShorterThanTheLeaseFailsTheStartup() {
		this.runner.withBean(DataSource.class, postgres::dataSource)
			.withPropertyValues("membership.jdbc.operation-timeout=3s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(dev.membership.InvalidMembershipSettingsException.class)
				.hasMessageContaining("membership.jdbc.operation-timeout (PT3S) must be shorter than the lease"));
	}

	@Test
	void theStoresOwnPoolKeepsTheSchemaOfTheApplicationsPool() throws Exception {
		org.springframework.jdbc.core.simple.JdbcClient.create(postgres.dataSource())
			.sql("CREATE SCHEMA IF NOT EXISTS tenant_a")
			.update();
		com.zaxxer.hikari.HikariDataSource application = applicationPool();
		application.setSchema("tenant_a");
		try {
			this.runner.withBean(DataSource.class, () -> application).run((context) -> {
				assertThat(context.getBean(MembershipConnections.class).isShared()).isFalse();
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(10)).until(() -> membership.isLeader("default"));
				// the tables where the application's pool would have put them, as when
				// the store shared it
				assertThat(org.springframework.jdbc.core.simple.JdbcClient.create(postgres.dataSource())
					.sql("SELECT count(*) FROM tenant_a.auto_leases WHERE name = 'default'")
					.query(Long.class)
					.single()).isEqualTo(1);
			});
		}
		finally {
			application.close();
		}
	}

	/**
	 * An application's HikariCP pool of one connection, which waits 20 s for it as
	 * HikariCP's default would.
	 */
	/**
	 * A store that connects as a role of its own, without the right to end another role's
	 * backend: the startup says what to grant (a take-over could not end a paused
	 * holder's fenced transaction, and the group would have no leader until it ended).
	 * Before: nothing was said until take-overs failed.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aStoreWithARoleOfItsOwnIsToldWhatToGrant(CapturedOutput output) {
		org.springframework.jdbc.core.simple.JdbcClient.create(postgres.dataSource())
			.sql("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'store_role') THEN "
					+ "CREATE ROLE store_role LOGIN; END IF; END $$")
			.update();
		com.zaxxer.hikari.HikariDataSource application = applicationPool();
		try {
			this.runner.withBean(DataSource.class, () -> application)
				.withPropertyValues("membership.jdbc.url=jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres",
						"membership.jdbc.username=store_role", "membership.jdbc.table-prefix=role_")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output)
						.contains(
								"The membership store connects as role store_role and the application " + "as postgres")
						.contains("GRANT pg_signal_backend TO store_role");
				});
			this.runner.withBean(DataSource.class, () -> application)
				.run((context) -> assertThat(output.getAll().split("GRANT pg_signal_backend", -1)).as("said once")
					.hasSize(2));
		}
		finally {
			application.close();
		}
	}

	private static com.zaxxer.hikari.HikariDataSource applicationPool() {
		com.zaxxer.hikari.HikariDataSource pool = new com.zaxxer.hikari.HikariDataSource();
		pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + postgres.port() + "/postgres");
		pool.setUsername("postgres");
		pool.setMaximumPoolSize(1);
		pool.setConnectionTimeout(20_000);
		return pool;
	}

}
