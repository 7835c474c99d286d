package dev.membership.jdbc.pgbouncer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.Membership;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.jdbc.EmbeddedPostgres;
import dev.membership.jdbc.ServerProcesses;
import dev.membership.jdbc.autoconfigure.MembershipJdbcAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cost of a server restart through PgBouncer (transaction mode): how long no node
 * believes it leads, from the restart's start, with {@code server_login_retry = 1} as the
 * guide advises ({@code -Dmembership.pgbouncer.login-retry=15}, PgBouncer's default,
 * measures what it costs without). Needs Debian's {@code pgbouncer}.
 */
class PgBouncerRestartTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final int LOGIN_RETRY = Integer.getInteger("membership.pgbouncer.login-retry", 1);

	private final List<ConfigurableApplicationContext> nodes = new ArrayList<>();

	@AfterEach
	void stop() {
		this.nodes.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void aFastRestartThroughPgBouncerCostsAboutALeaseWithALoginRetryOfOneSecond() throws Exception {
		if (System.getenv("MEMBERSHIP_REQUIRE_PGBOUNCER") == null) {
			assumeTrue(PgBouncer.available(), "Debian's pgbouncer is not installed");
		}
		try (PgBouncer bouncer = PgBouncer.start(postgres.port(), 2, "transaction",
				"server_login_retry = " + LOGIN_RETRY)) {
			List<Membership> members = new ArrayList<>();
			for (int i = 1; i <= 3; i++) {
				members.add(node("r" + i, bouncer.url()));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> leaders(members) == 1);
			ServerProcesses server = new ServerProcesses(JdbcClient.create(postgres.dataSource()));
			long restart = System.nanoTime();
			server.restart("fast");
			// sampled every 10 ms: the longest stretch with no believer from the restart
			// until one leads again and has for a second
			long without = 0;
			long since = -1;
			long steady = -1;
			long deadline = restart + Duration.ofSeconds(60).toNanos();
			while (System.nanoTime() < deadline && (steady < 0 || System.nanoTime() - steady < 1_000_000_000L)) {
				long now = System.nanoTime();
				if (leaders(members) == 0) {
					since = (since < 0) ? now : since;
					steady = -1;
				}
				else {
					if (since >= 0) {
						without = Math.max(without, now - since);
						since = -1;
					}
					steady = (steady < 0) ? now : steady;
				}
				await().pollDelay(Duration.ofMillis(10)).atMost(Duration.ofSeconds(1)).until(() -> true);
			}
			Duration leaderless = Duration.ofNanos(without);
			System.out.println("Through PgBouncer (server_login_retry = " + LOGIN_RETRY + "): no leader for "
					+ leaderless.toMillis() + " ms after a fast restart");
			assertThat(steady).as("a leader again within 60 s").isPositive();
			if (LOGIN_RETRY == 1) {
				// the lease (1.2 s) and an interval, PgBouncer's retry and the restart
				// itself
				assertThat(leaderless).isLessThan(Duration.ofSeconds(6));
			}
		}
	}

	private static long leaders(List<Membership> members) {
		return members.stream().filter((m) -> m.isLeader("default")).count();
	}

	private Membership node(String nodeId, String url) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Node.class).web(WebApplicationType.NONE)
			.properties("spring.datasource.url=" + url, "spring.datasource.username=postgres",
					"membership.node-id=" + nodeId, "membership.renewal-interval=300ms",
					"membership.lease-duration=1200ms", "membership.liveness-window=900ms",
					"membership.jdbc.table-prefix=restart_")
			.run();
		this.nodes.add(context);
		return context.getBean(Membership.class);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, MembershipJdbcAutoConfiguration.class,
			MembershipAutoConfiguration.class })
	static class Node {

	}

}
