package dev.membership.jdbc.autoconfigure;

import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.jdbc.EmbeddedPostgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A pool that an outage left without a connection is made anew (HikariCP's own attempts
 * slow down to one every 5 s), and the old one closed; a pool that is only exhausted, its
 * connection busy elsewhere, is kept. The nodes' return after an outage is
 * {@code PostgresFaultTests#aServerDownForSixSeconds}.
 */
class RenewedPoolTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	@Test
	void aPoolWithoutAnyConnectionIsMadeAnew() throws Exception {
		int closedPort;
		try (ServerSocket socket = new ServerSocket(0)) {
			closedPort = socket.getLocalPort();
		}
		try (RenewedPool pool = new RenewedPool(() -> pool(closedPort))) {
			HikariDataSource first = pool.current();
			assertThatExceptionOfType(SQLTransientConnectionException.class).isThrownBy(pool::getConnection);
			assertThat(pool.current()).isNotSameAs(first);
			await().atMost(Duration.ofSeconds(10)).until(first::isClosed);
		}
	}

	@Test
	void aPoolWhoseConnectionIsBusyIsKept() throws Exception {
		try (RenewedPool pool = new RenewedPool(() -> pool(postgres.port())); Connection busy = pool.getConnection()) {
			HikariDataSource first = pool.current();
			assertThatExceptionOfType(SQLTransientConnectionException.class).isThrownBy(pool::getConnection);
			assertThat(pool.current()).isSameAs(first);
			assertThat(busy.isValid(1)).isTrue();
		}
	}

	private static HikariDataSource pool(int port) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres");
		config.setUsername("postgres");
		config.setMaximumPoolSize(1);
		config.setConnectionTimeout(250);
		config.setInitializationFailTimeout(-1);
		return new HikariDataSource(config);
	}

}
