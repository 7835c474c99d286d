package dev.membership.bench.failover;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

import dev.membership.bench.support.EmbeddedMongoServer;

/**
 * Apache Curator's {@code LeaderLatch} on an in-JVM ZooKeeper (curator-test) with the
 * session timeout set to our lease. Each member reaches the server through its own
 * {@link BlackholeProxy}, so that a crash silences it without closing its session: the
 * ensemble notices only when the session times out, as with a dead host.
 */
final class CuratorContender implements Contender {

	/**
	 * ZooKeeper's tick: sessions are checked for expiry every tick; 50 ms allows sessions
	 * from 100 ms to 60 s.
	 */
	static final int TICK_MILLIS = 50;

	private final TestingServer server;

	private final ExecutorService closer = Executors.newCachedThreadPool((r) -> {
		Thread t = new Thread(r, "curator-closer");
		t.setDaemon(true);
		return t;
	});

	CuratorContender() throws Exception {
		System.setProperty("zookeeper.admin.enableServer", "false");
		int port = EmbeddedMongoServer.freePort();
		InstanceSpec spec = new InstanceSpec(null, port, -1, -1, true, -1, TICK_MILLIS, -1,
				Map.of("clientPortAddress", "127.0.0.1", "maxSessionTimeout", "60000"), "127.0.0.1");
		this.server = new TestingServer(spec, true);
	}

	@Override
	public String name() {
		return "Curator 5.9.0 LeaderLatch";
	}

	@Override
	public String describe(Duration lease) {
		return "session timeout " + lease.toMillis() + " ms, tick " + TICK_MILLIS + " ms";
	}

	@Override
	public Member join(String id, Duration lease, ElectedCallback onElected) throws Exception {
		BlackholeProxy proxy = new BlackholeProxy(this.server.getPort());
		int sessionMillis = (int) lease.toMillis();
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString("127.0.0.1:" + proxy.port())
			.sessionTimeoutMs(sessionMillis)
			.connectionTimeoutMs(Math.min(sessionMillis, 5000))
			.retryPolicy(new ExponentialBackoffRetry(100, 29, 1000))
			.build();
		client.start();
		LeaderLatch latch = new LeaderLatch(client, "/bench/leader", id);
		latch.addListener(new LeaderLatchListener() {
			@Override
			public void isLeader() {
				onElected.elected(id, System.nanoTime());
			}

			@Override
			public void notLeader() {
			}
		});
		latch.start();
		return new Member() {
			@Override
			public String id() {
				return id;
			}

			@Override
			public boolean isLeader() {
				return latch.hasLeadership();
			}

			@Override
			public void crash() {
				proxy.goDark();
			}

			@Override
			public void leave() {
				try {
					latch.close();
				}
				catch (IOException ex) {
					throw new IllegalStateException(ex);
				}
			}

			@Override
			public void dispose() {
				proxy.goDark();
				// closing a client cut off from its server can wait on its connection
				// timeout: not on the clock
				CuratorContender.this.closer.execute(() -> {
					try {
						latch.close(LeaderLatch.CloseMode.SILENT);
					}
					catch (Exception ex) {
						// it is dead already
					}
					client.close();
				});
			}
		};
	}

	@Override
	public void close() throws Exception {
		this.closer.shutdown();
		this.server.close();
	}

}
