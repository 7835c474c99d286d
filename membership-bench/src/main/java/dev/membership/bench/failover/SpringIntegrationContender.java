package dev.membership.bench.failover;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} over its JDBC lock registry on an embedded H2 database,
 * with the lock's time to live set to our lease and the heartbeat to a third of it. A crash cuts the member off from
 * the database (every connection attempt fails) before its initiator stops, so the lock row stays until it expires.
 */
final class SpringIntegrationContender implements Contender {

	private final JdbcDataSource database = new JdbcDataSource();

	SpringIntegrationContender() {
		this.database.setURL("jdbc:h2:mem:si-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		new JdbcTemplate(this.database).execute("""
				CREATE TABLE INT_LOCK (
					LOCK_KEY CHAR(36) NOT NULL,
					REGION VARCHAR(100) NOT NULL,
					CLIENT_ID CHAR(36),
					CREATED_DATE TIMESTAMP NOT NULL,
					EXPIRED_AFTER TIMESTAMP NOT NULL,
					constraint INT_LOCK_PK primary key (LOCK_KEY, REGION)
				)""");
	}

	@Override
	public String name() {
		return "Spring Integration 7.0.5 JDBC leader";
	}

	@Override
	public String describe(Duration lease) {
		return "lock TTL " + lease.toMillis() + " ms, heartbeat " + lease.dividedBy(3).toMillis() + " ms";
	}

	@Override
	public Member join(String id, Duration lease, ElectedCallback onElected) {
		Severable severable = new Severable(this.database);
		DefaultLockRepository repository = new DefaultLockRepository(severable.dataSource, UUID.randomUUID().toString());
		repository.setTimeToLive((int) lease.toMillis());
		repository.setTransactionManager(new DataSourceTransactionManager(severable.dataSource));
		repository.afterPropertiesSet();
		repository.afterSingletonsInstantiated();
		repository.start();
		JdbcLockRegistry registry = new JdbcLockRegistry(repository, lease);
		DefaultCandidate candidate = new DefaultCandidate(id, "bench") {
			@Override
			public void onGranted(Context context) {
				onElected.elected(id, System.nanoTime());
				super.onGranted(context);
			}
		};
		LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
		initiator.setHeartBeatMillis(lease.dividedBy(3).toMillis());
		initiator.start();
		return new Member() {
			@Override
			public String id() {
				return id;
			}

			@Override
			public boolean isLeader() {
				return initiator.getContext().isLeader();
			}

			@Override
			public void crash() {
				severable.severed = true;
				initiator.stop();
			}

			@Override
			public void leave() {
				initiator.stop();
			}

			@Override
			public void dispose() {
				severable.severed = true;
				initiator.stop();
				repository.stop();
			}
		};
	}

	@Override
	public void close() {
		new JdbcTemplate(this.database).execute("SHUTDOWN");
	}

	/** A data source that can be cut off: then every new connection, and every call on an open one, fails. */
	private static final class Severable {

		volatile boolean severed;

		final DataSource dataSource;

		Severable(DataSource target) {
			this.dataSource = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { DataSource.class }, (proxy, method, args) -> {
						Object result = invoke(target, method, args);
						return (result instanceof Connection connection) ? severable(connection) : result;
					});
		}

		private Connection severable(Connection connection) {
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> invoke(connection, method, args));
		}

		private Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
			if (this.severed && !method.getName().equals("close")) {
				throw new SQLException("Database unreachable (crashed member)");
			}
			try {
				return method.invoke(target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getCause();
			}
		}

	}

}
