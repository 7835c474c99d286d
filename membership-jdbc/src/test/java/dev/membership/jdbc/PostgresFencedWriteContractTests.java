package dev.membership.jdbc;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.leadership.FencedWrite;
import dev.membership.test.FencedWriteContract;

/**
 * The fence contract both stores pass, for PostgreSQL's {@link JdbcEpochFence} on a real
 * server.
 */
class PostgresFencedWriteContractTests extends FencedWriteContract {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final AtomicInteger tables = new AtomicInteger();

	@Override
	protected Target target() {
		JdbcClient jdbc = JdbcClient.create(postgres.dataSource());
		String table = "contract" + tables.incrementAndGet();
		jdbc.sql("CREATE TABLE " + table + " (id text PRIMARY KEY, customer text, value text, fence bigint)").update();
		return new Target() {

			@Override
			public FencedWrite upsert(String group, long epoch, String id, String value) {
				return JdbcEpochFence.of(group, epoch).upsert(jdbc, table, Map.of("id", id), Map.of("value", value));
			}

			@Override
			public FencedWrite updateCustomer(String group, long epoch, String customer, String value) {
				return JdbcEpochFence.of(group, epoch)
					.update(jdbc, table, Map.of("value", value), Map.of("customer", customer));
			}

			@Override
			public void insertUnfenced(String id, String customer, String value) {
				jdbc.sql("INSERT INTO " + table + " (id, customer, value) VALUES (?, ?, ?)")
					.params(id, customer, value)
					.update();
			}

			@Override
			public @Nullable String value(String id) {
				List<String> values = jdbc.sql("SELECT value FROM " + table + " WHERE id = ?")
					.param(id)
					.query(String.class)
					.list();
				return values.isEmpty() ? null : values.get(0);
			}

			@Override
			public void orThrow(String group, long epoch, FencedWrite write) {
				((JdbcFencedWriteResult) write).orThrow(JdbcEpochFence.of(group, epoch));
			}

		};
	}

}
