package dev.membership.jdbc;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import dev.membership.spi.MembershipStore;
import dev.membership.test.TransactionFenceContract;

/**
 * The transaction fence contract for PostgreSQL's {@link JdbcEpochFence}, on a real
 * server, each fenced transaction committed through Spring's transaction manager (the
 * take-over's wait for an older term's open transaction: {@code TransactionFenceTests}).
 */
class PostgresTransactionFenceContractTests extends TransactionFenceContract {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final AtomicInteger prefixes = new AtomicInteger();

	@Override
	protected Target target() {
		String prefix = "tfc" + prefixes.incrementAndGet() + "_";
		// one DataSource for the store, the transactions and the fence, as in an
		// application
		DataSource dataSource = postgres.dataSource();
		JdbcMembershipStore store = new JdbcMembershipStore(dataSource,
				new JdbcStoreSettings(prefix, Duration.ofSeconds(4), true));
		store.initialize();
		JdbcClient jdbc = JdbcClient.create(dataSource);
		String rows = prefix + "rows";
		jdbc.sql("CREATE TABLE " + rows + " (id text PRIMARY KEY, epoch bigint)").update();
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		return new Target() {

			@Override
			public MembershipStore store() {
				return store;
			}

			@Override
			public OptionalLong termEpoch(String lease) {
				return jdbc.sql("SELECT epoch FROM " + prefix + "terms WHERE name = ?")
					.param(lease)
					.query(Long.class)
					.optional()
					.map(OptionalLong::of)
					.orElse(OptionalLong.empty());
			}

			@Override
			public void runFenced(String group, long epoch, String id) {
				JdbcEpochFence fence = JdbcEpochFence.of(group, epoch).tablePrefix(prefix);
				transactions.executeWithoutResult((status) -> {
					fence.joinTransaction(dataSource);
					jdbc.sql("INSERT INTO " + rows + " (id, epoch) VALUES (?, ?)").params(id, epoch).update();
				});
			}

			@Override
			public boolean written(String id) {
				return jdbc.sql("SELECT count(*) FROM " + rows + " WHERE id = ?")
					.param(id)
					.query(Long.class)
					.single() > 0;
			}

			@Override
			public void joinOutsideATransaction(String group, long epoch) {
				JdbcEpochFence.of(group, epoch).tablePrefix(prefix).joinTransaction(dataSource);
			}

		};
	}

}
