package dev.membership.bench.failover;

import java.util.List;

import dev.membership.bench.support.CountingDataSource;

/**
 * The failover contenders on one PostgreSQL server, each member with a pool of its own.
 */
public final class PostgresContenders {

	/** Spring Integration's lock table (its DDL for PostgreSQL, with IF NOT EXISTS). */
	public static final String SI_DDL = SpringIntegrationContender.DDL;

	private PostgresContenders() {
	}

	/**
	 * Ours and Spring Integration's JDBC leader on the server at {@code url}. ShedLock
	 * has no leader to fail over: it locks each run, and a crashed holder's lock stays
	 * for {@code lockAtMostFor} by construction.
	 */
	public static List<Contender> on(String url) {
		return List.of(new PostgresMembershipContender(url),
				new SpringIntegrationContender("Spring Integration 7.0.5 JDBC leader, PostgreSQL",
						() -> CountingDataSource.pool(url, 2), CountingDataSource::close));
	}

}
