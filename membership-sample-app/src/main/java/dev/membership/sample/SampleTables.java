package dev.membership.sample;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The sample's own tables on PostgreSQL (postgres profile), and its times there. */
public final class SampleTables {

	private SampleTables() {
	}

	/**
	 * Runs {@code ddl} (CREATE ... IF NOT EXISTS); nodes starting at once may race in the
	 * catalog: tried again.
	 */
	public static void create(JdbcClient jdbc, String... ddl) {
		for (String statement : ddl) {
			try {
				jdbc.sql(statement).update();
			}
			catch (DataAccessException ex) {
				jdbc.sql(statement).update();
			}
		}
	}

	public static OffsetDateTime timestamp(Instant instant) {
		return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
	}

	public static @Nullable Instant instant(@Nullable OffsetDateTime timestamp) {
		return (timestamp != null) ? timestamp.toInstant() : null;
	}

}
