package dev.membership.jdbc;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import javax.sql.DataSource;

import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.CachedBroadcastKeys;
import dev.membership.spi.StoreException;

/**
 * The cluster's broadcast keys, generated once and kept in PostgreSQL
 * ({@code membership_keys}), as the MongoDB store keeps them: every node that can read
 * the database signs and verifies with no configuration. The first node to ask inserts a
 * random 256-bit key; everyone else reads it. To rotate, add a new key last in the row's
 * {@code keys}, then, once every node has read it (five minutes:
 * {@link CachedBroadcastKeys}), move it first, then remove the old one; or configure
 * {@code membership.broadcast.keys} instead.
 */
public final class JdbcBroadcastKeys extends CachedBroadcastKeys {

	private final Statements sql;

	private final String insert;

	private final String find;

	private final SecureRandom random = new SecureRandom();

	public JdbcBroadcastKeys(DataSource dataSource, JdbcStoreSettings settings) {
		this.sql = new Statements(dataSource, settings);
		String table = settings.table("keys");
		this.insert = "INSERT INTO " + table + " (id, keys, created_at) VALUES ('broadcast', ARRAY[?::text], "
				+ Statements.NOW + ") ON CONFLICT (id) DO NOTHING";
		this.find = "SELECT keys FROM " + table + " WHERE id = 'broadcast'";
	}

	@Override
	protected BroadcastKeyring load() {
		byte[] candidate = new byte[32];
		this.random.nextBytes(candidate);
		String encoded = Base64.getEncoder().encodeToString(candidate);
		// an insert that loses to another node's does nothing; the read after it sees the
		// winner's (autocommit)
		this.sql.call("keep a broadcast key", () -> this.sql.jdbc.update(this.insert, encoded));
		List<String> keys = this.sql.call("read the broadcast keys",
				() -> this.sql.jdbc.query(this.find, (rs, i) -> List.of((String[]) rs.getArray("keys").getArray()))
					.stream()
					.findFirst()
					.orElseThrow(() -> new StoreException("The broadcast key row is missing", null)));
		List<byte[]> secrets = new ArrayList<>();
		for (String key : keys) {
			secrets.add(Base64.getDecoder().decode(key));
		}
		return new BroadcastKeyring(secrets);
	}

}
