package dev.membership.jdbc;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.MembershipStore;
import dev.membership.test.MembershipStoreContract;

/**
 * The whole store contract, against a real PostgreSQL server; each test on tables of its
 * own prefix.
 */
class PostgresStoreContractTests extends MembershipStoreContract {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	@Override
	protected MembershipStore createStore(String namespace) {
		return new JdbcMembershipStore(postgres.dataSource(),
				JdbcStoreSettings.defaults().withTablePrefix(namespace + "_"));
	}

}
