package dev.membership.bench.failover;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.mongodb.client.MongoClient;

import dev.membership.bench.support.BenchNode;
import dev.membership.bench.support.EmbeddedMongoServer;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipSettings;

/**
 * Our nodes as the starter runs them in a web application: renewal every lease/3,
 * liveness window lease/2+, broadcast of released leases and new leaders over HTTP on
 * 127.0.0.1. Each member has its own MongoDB client, as a separate process would.
 */
final class MembershipContender implements Contender, LeaseProbe {

	private final EmbeddedMongoServer server = new EmbeddedMongoServer();

	private final BroadcastKeyring keyring;

	private final MongoClient probe = this.server.newClient();

	/**
	 * Wall-clock milliseconds at which each member learned it leads, to compare with
	 * lease expiries.
	 */
	private final Map<String, Long> electedAtMillis = new ConcurrentHashMap<>();

	MembershipContender() {
		byte[] key = new byte[32];
		new SecureRandom().nextBytes(key);
		this.keyring = BroadcastKeyring.ofStrings(List.of(Base64.getEncoder().encodeToString(key)));
	}

	@Override
	public String name() {
		return "membership (ours)";
	}

	@Override
	public String describe(Duration lease) {
		return "lease " + lease.toMillis() + " ms, renew every " + settings("x", lease).renewalInterval().toMillis()
				+ " ms";
	}

	static MembershipSettings settings(String id, Duration lease) {
		Duration interval = lease.dividedBy(3);
		return MembershipSettings.builder(id)
			.renewalInterval(interval)
			.leaseDuration(lease)
			.livenessWindow(lease.dividedBy(2).plus(interval.dividedBy(2)))
			.build();
	}

	@Override
	public Member join(String id, Duration lease, ElectedCallback onElected) {
		MongoClient client = this.server.newClient();
		BenchNode node = BenchNode.start(settings(id, lease), client.getDatabase("bench"),
				observer(this.electedAtMillis, onElected), this.keyring);
		return member(id, node, client::close);
	}

	/**
	 * Tells {@code onElected} when a member learned it leads, and notes the wall-clock
	 * time in {@code electedAt}.
	 */
	static LeadershipObserver observer(Map<String, Long> electedAt, ElectedCallback onElected) {
		return new LeadershipObserver() {
			@Override
			public void started(String nodeId, String group, long epoch, long atNanos) {
				electedAt.put(nodeId, System.currentTimeMillis());
				onElected.elected(nodeId, atNanos);
			}

			@Override
			public void ended(String nodeId, String group, long epoch, long atNanos) {
			}
		};
	}

	/**
	 * One of our nodes as a member: it leads the default group; {@code dispose} frees its
	 * client or pool.
	 */
	static Member member(String id, BenchNode node, Runnable dispose) {
		return new Member() {
			@Override
			public String id() {
				return id;
			}

			@Override
			public boolean isLeader() {
				return node.node().isLeader("default");
			}

			@Override
			public void crash() {
				node.crash();
			}

			@Override
			public void leave() {
				node.leave();
			}

			@Override
			public void dispose() {
				node.close();
				dispose.run();
			}
		};
	}

	/**
	 * When the lease in the database expires (database time; the stand-in runs on this
	 * machine's clock).
	 */
	@Override
	public Instant leaseExpiry(Duration lease) {
		MongoMembershipStore store = new MongoMembershipStore(this.probe.getDatabase("bench"),
				BenchNode.storeSettings(settings("probe", lease)));
		return store.findLease("default").map(LeaseRecord::expiresAt).orElse(null);
	}

	@Override
	public Long electedAtMillis(String memberId) {
		return this.electedAtMillis.get(memberId);
	}

	@Override
	public void close() {
		this.probe.close();
		this.server.close();
	}

}
