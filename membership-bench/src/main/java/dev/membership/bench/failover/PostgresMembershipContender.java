package dev.membership.bench.failover;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import javax.sql.DataSource;

import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.CountingDataSource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.jdbc.JdbcMembershipStore;
import dev.membership.jdbc.JdbcStoreSettings;
import dev.membership.spi.LeaseRecord;

/**
 * Our nodes on PostgreSQL ({@code membership-jdbc}), as the starter runs them in a web
 * application (broadcast of released leases over HTTP on 127.0.0.1), each with a
 * connection pool of its own, as a separate process would.
 */
final class PostgresMembershipContender implements Contender, LeaseProbe {

	private final String url;

	private final JdbcStoreSettings store = JdbcStoreSettings.defaults().withTablePrefix("failover_");

	private final BroadcastKeyring keyring;

	private final DataSource probe;

	private final Map<String, Long> electedAtMillis = new ConcurrentHashMap<>();

	PostgresMembershipContender(String url) {
		this.url = url;
		this.probe = CountingDataSource.pool(url, 1);
		new JdbcMembershipStore(this.probe, this.store).initialize();
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		this.keyring = BroadcastKeyring.ofStrings(List.of(Base64.getEncoder().encodeToString(key)));
	}

	@Override
	public String name() {
		return "membership (ours), PostgreSQL";
	}

	@Override
	public String describe(Duration lease) {
		return "lease " + lease.toMillis() + " ms, renew every "
				+ MembershipContender.settings("x", lease).renewalInterval().toMillis() + " ms";
	}

	@Override
	public Member join(String id, Duration lease, ElectedCallback onElected) {
		DataSource pool = CountingDataSource.pool(this.url, 2);
		BenchNode node = BenchNode.start(MembershipContender.settings(id, lease),
				new JdbcMembershipStore(pool, this.store),
				MembershipContender.observer(this.electedAtMillis, onElected), this.keyring, List.of());
		return MembershipContender.member(id, node, () -> CountingDataSource.close(pool));
	}

	@Override
	public Instant leaseExpiry(Duration lease) {
		return new JdbcMembershipStore(this.probe, this.store).findLease("default")
			.map(LeaseRecord::expiresAt)
			.orElse(null);
	}

	@Override
	public Long electedAtMillis(String memberId) {
		return this.electedAtMillis.get(memberId);
	}

	@Override
	public void close() {
		CountingDataSource.close(this.probe);
	}

}
