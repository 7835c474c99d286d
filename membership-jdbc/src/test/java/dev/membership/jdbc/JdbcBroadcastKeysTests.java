package dev.membership.jdbc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.broadcast.BroadcastKeyring;

import static org.assertj.core.api.Assertions.assertThat;

/** The generated broadcast key, kept once in PostgreSQL and read by every node. */
class JdbcBroadcastKeysTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	@Test
	void everyNodeSignsWithTheKeyTheFirstOneKept() {
		JdbcStoreSettings settings = JdbcStoreSettings.defaults().withTablePrefix("keys_");
		new JdbcMembershipStore(postgres.dataSource(), settings).initialize();
		JdbcBroadcastKeys first = new JdbcBroadcastKeys(postgres.dataSource(), settings);
		JdbcBroadcastKeys second = new JdbcBroadcastKeys(postgres.dataSource(), settings);
		assertThat(first.keyringAtHand()).isNull();
		BroadcastKeyring a = first.keyring();
		BroadcastKeyring b = second.keyring();
		byte[] body = "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8);
		assertThat(b.primaryKeyId()).isEqualTo(a.primaryKeyId());
		assertThat(b.verify(a.primaryKeyId(), "n2", body, a.sign("n2", body))).isTrue();
		assertThat(first.keyringAtHand()).isSameAs(a);
	}

}
