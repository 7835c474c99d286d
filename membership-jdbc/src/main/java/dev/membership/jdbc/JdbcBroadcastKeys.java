package dev.membership.jdbc;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.spi.StoreException;

/**
 * The cluster's broadcast keys, generated once and kept in PostgreSQL ({@code membership_keys}), as the MongoDB store
 * keeps them: every node that can read the database signs and verifies with no configuration. The first node to ask
 * inserts a random 256-bit key; everyone else reads it. To rotate, put a new key first in the row's {@code keys}
 * (nodes read it again every five minutes), or configure {@code membership.broadcast.keys} instead.
 */
public final class JdbcBroadcastKeys implements BroadcastKeySource {

	private static final Logger log = LoggerFactory.getLogger(JdbcBroadcastKeys.class);

	private static final Duration REFRESH = Duration.ofMinutes(5);

	private static final Duration RETRY = Duration.ofSeconds(30);

	private final Statements sql;

	private final String insert;

	private final String find;

	private final SecureRandom random = new SecureRandom();

	private volatile @Nullable BroadcastKeyring cached;

	private volatile long cachedAtNanos;

	public JdbcBroadcastKeys(DataSource dataSource, JdbcStoreSettings settings) {
		this.sql = new Statements(dataSource, settings);
		String table = settings.table("keys");
		this.insert = "INSERT INTO " + table + " (id, keys, created_at) VALUES ('broadcast', ARRAY[?::text], "
				+ Statements.NOW + ") ON CONFLICT (id) DO NOTHING";
		this.find = "SELECT keys FROM " + table + " WHERE id = 'broadcast'";
	}

	@Override
	public @Nullable BroadcastKeyring keyringAtHand() {
		BroadcastKeyring current = this.cached;
		return (current != null && System.nanoTime() - this.cachedAtNanos < REFRESH.toNanos()) ? current : null;
	}

	@Override
	public BroadcastKeyring keyring() {
		BroadcastKeyring current = this.cached;
		if (current != null && System.nanoTime() - this.cachedAtNanos < REFRESH.toNanos()) {
			return current;
		}
		try {
			BroadcastKeyring loaded = load();
			this.cached = loaded;
			this.cachedAtNanos = System.nanoTime();
			return loaded;
		}
		catch (StoreException ex) {
			if (current == null) {
				throw ex;
			}
			// keep the keys we have, and do not make every message wait for the database meanwhile
			this.cachedAtNanos = System.nanoTime() - REFRESH.toNanos() + RETRY.toNanos();
			log.warn("Cannot refresh the broadcast keys ({}); keeping the ones read before, trying again in {}",
					ex.getMessage(), RETRY);
			return current;
		}
	}

	private BroadcastKeyring load() {
		byte[] candidate = new byte[32];
		this.random.nextBytes(candidate);
		String encoded = Base64.getEncoder().encodeToString(candidate);
		// an insert that loses to another node's does nothing; the read after it sees the winner's (autocommit)
		this.sql.call("keep a broadcast key", () -> this.sql.jdbc.update(this.insert, encoded));
		List<String> keys = this.sql.call("read the broadcast keys", () -> this.sql.jdbc
			.query(this.find, (rs, i) -> List.of((String[]) rs.getArray("keys").getArray()))
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
