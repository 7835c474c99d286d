package dev.membership.jdbc.pgbouncer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import dev.membership.Membership;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.jdbc.EmbeddedPostgres;
import dev.membership.jdbc.autoconfigure.MembershipJdbcAutoConfiguration;
import dev.membership.leadership.LeaderInfo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

/**
 * Three nodes on PostgreSQL through PgBouncer in transaction mode (two server connections
 * for all of them), with the application's URL as written, no flags: one leader and one
 * epoch for the whole window and no statement error, where on the application's pool
 * alone (pgjdbc's server-side prepared statements after five executions, each transaction
 * on any server connection) the store's calls fail within seconds. Needs Debian's
 * {@code pgbouncer} ({@code .ci/run} installs it; with
 * {@code MEMBERSHIP_REQUIRE_PGBOUNCER} set the test fails rather than skips without it).
 */
@ExtendWith(OutputCaptureExtension.class)
class PgBouncerTransactionModeTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	/**
	 * How long the nodes are watched; {@code -Dmembership.pgbouncer.seconds=60} for the
	 * long run.
	 */
	private static final Duration WINDOW = Duration.ofSeconds(Long.getLong("membership.pgbouncer.seconds", 10));

	private PgBouncer bouncer;

	private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

	@BeforeEach
	void start() throws Exception {
		if (System.getenv("MEMBERSHIP_REQUIRE_PGBOUNCER") == null) {
			assumeTrue(PgBouncer.available(), "Debian's pgbouncer is not installed");
		}
		assertThat(PgBouncer.available()).as("MEMBERSHIP_REQUIRE_PGBOUNCER is set and /usr/sbin/pgbouncer is absent")
			.isTrue();
		this.bouncer = PgBouncer.start(postgres.port(), 2);
	}

	@AfterEach
	void stop() throws Exception {
		this.nodes.forEach(ConfigurableApplicationContext::close);
		if (this.bouncer != null) {
			this.bouncer.close();
		}
	}

	private Membership node(String nodeId, String prefix, String... more) {
		List<String> properties = new ArrayList<>(List.of("spring.datasource.url=" + this.bouncer.url(),
				"spring.datasource.username=postgres", "membership.node-id=" + nodeId,
				"membership.renewal-interval=300ms", "membership.lease-duration=1200ms",
				"membership.liveness-window=900ms", "membership.jdbc.table-prefix=" + prefix));
		properties.addAll(List.of(more));
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Node.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
		this.nodes.add(context);
		return context.getBean(Membership.class);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, MembershipJdbcAutoConfiguration.class,
			MembershipAutoConfiguration.class })
	static class Node {

	}

	@Test
	void threeNodesKeepOneLeaderAndOneEpochThroughTransactionModeWithNoStatementError(CapturedOutput output) {
		List<Membership> members = start("bouncer_");
		Set<Long> epochs = watch(members);
		assertThat(epochs).as("the epochs seen over %s: one term", WINDOW).hasSize(1);
		assertThat(output.getAll()).doesNotContain("a call of the store failed").doesNotContain("prepared statement");
	}

	@Test
	void onTheApplicationsPoolStatementsFailThroughTransactionMode(CapturedOutput output) {
		start("shared_", "membership.jdbc.pool.shared=true");
		// pgjdbc's server-side prepared statements, after five executions, meet another
		// client's on a server connection: 'prepared statement "S_1" already exists' (or
		// does not exist), and the store's calls fail
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> output.getAll().contains("a call of the store failed")
					&& output.getAll().contains("prepared statement \"S_"));
	}

	/**
	 * Statement mode refuses the take-over's transaction: the start fails and names it.
	 * Before: the start went through, nobody was elected, health said UP, and the error
	 * read "Connection is closed".
	 */
	@Test
	void statementModeFailsTheStartNamingIt() throws Exception {
		try (PgBouncer statementMode = PgBouncer.start(postgres.port(), 2, "statement")) {
			assertThatException()
				.isThrownBy(() -> new SpringApplicationBuilder(Node.class).web(WebApplicationType.NONE)
					.properties("spring.datasource.url=" + statementMode.url(), "spring.datasource.username=postgres",
							"membership.node-id=s1", "membership.jdbc.table-prefix=stmt_")
					.run()
					.close())
				.satisfies((failure) -> assertThat(failure).hasStackTraceContaining("statement pooling mode")
					.hasStackTraceContaining("pool_mode = transaction"));
		}
	}

	private List<Membership> start(String prefix, String... more) {
		List<Membership> members = new ArrayList<>();
		for (int i = 1; i <= 3; i++) {
			members.add(node("b" + i, prefix, more));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> members.stream().anyMatch((m) -> m.isLeader("default")));
		return members;
	}

	/**
	 * The epochs of the group's terms the nodes saw over the window; fails on two
	 * believers at one sample.
	 */
	private Set<Long> watch(List<Membership> members) {
		Set<Long> epochs = new TreeSet<>();
		long end = System.nanoTime() + WINDOW.toNanos();
		while (System.nanoTime() < end) {
			long leaders = members.stream().filter((m) -> m.isLeader("default")).count();
			assertThat(leaders).as("believers at one sample").isLessThanOrEqualTo(1);
			members.forEach((m) -> m.leader("default").map(LeaderInfo::epoch).ifPresent(epochs::add));
			await().pollDelay(Duration.ofMillis(50)).atMost(Duration.ofSeconds(1)).until(() -> true);
		}
		return epochs;
	}

}
