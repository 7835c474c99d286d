package dev.membership.bench.failover;

import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;

import javax.sql.DataSource;

import org.h2.jdbcx.JdbcDataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import dev.membership.bench.support.CountingDataSource;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} over its JDBC lock registry,
 * with the lock's time to live set to our lease and the heartbeat to a third of it: on an
 * embedded H2 database, or on a real PostgreSQL server with a pool per member. A crash
 * cuts the member off from the database (every connection attempt fails) before its
 * initiator stops, so the lock row stays until it expires.
 */
final class SpringIntegrationContender implements Contender {

	static final String DDL = """
			CREATE TABLE IF NOT EXISTS INT_LOCK (
				LOCK_KEY CHAR(36) NOT NULL,
				REGION VARCHAR(100) NOT NULL,
				CLIENT_ID CHAR(36),
				CREATED_DATE TIMESTAMP NOT NULL,
				EXPIRED_AFTER TIMESTAMP NOT NULL,
				constraint INT_LOCK_PK primary key (LOCK_KEY, REGION)
			)""";

	private final String name;

	private final Supplier<DataSource> memberDataSource;

	private final Consumer<DataSource> closeMember;

	private final Runnable close;

	/** On an embedded H2 database of its own. */
	SpringIntegrationContender() {
		JdbcDataSource database = new JdbcDataSource();
		database.setURL("jdbc:h2:mem:si-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		new JdbcTemplate(database).execute(DDL);
		this.name = "Spring Integration 7.0.5 JDBC leader";
		this.memberDataSource = () -> database;
		this.closeMember = (member) -> {
		};
		this.close = () -> new JdbcTemplate(database).execute("SHUTDOWN");
	}

	/** On a database each member reaches through a data source (a pool) of its own. */
	SpringIntegrationContender(String name, Supplier<DataSource> memberDataSource, Consumer<DataSource> closeMember) {
		this.name = name;
		this.memberDataSource = memberDataSource;
		this.closeMember = closeMember;
		this.close = () -> {
		};
		DataSource setup = memberDataSource.get();
		new JdbcTemplate(setup).execute(DDL);
		closeMember.accept(setup);
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public String describe(Duration lease) {
		return "lock TTL " + lease.toMillis() + " ms, heartbeat " + lease.dividedBy(3).toMillis() + " ms";
	}

	@Override
	public Member join(String id, Duration lease, ElectedCallback onElected) {
		DataSource pool = this.memberDataSource.get();
		CountingDataSource severable = new CountingDataSource(pool);
		DefaultLockRepository repository = new DefaultLockRepository(severable.dataSource(),
				UUID.randomUUID().toString());
		repository.setTimeToLive((int) lease.toMillis());
		repository.setTransactionManager(new DataSourceTransactionManager(severable.dataSource()));
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
				severable.sever();
				initiator.stop();
			}

			@Override
			public void leave() {
				initiator.stop();
			}

			@Override
			public void dispose() {
				severable.sever();
				initiator.stop();
				repository.stop();
				SpringIntegrationContender.this.closeMember.accept(pool);
			}
		};
	}

	@Override
	public void close() {
		this.close.run();
	}

}
