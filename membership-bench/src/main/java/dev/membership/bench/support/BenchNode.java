package dev.membership.bench.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.mongodb.client.MongoDatabase;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.broadcast.BroadcastKeySource;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.BroadcastMetrics;
import dev.membership.broadcast.BroadcastReceiver;
import dev.membership.broadcast.BroadcastSettings;
import dev.membership.broadcast.ClusterBroadcaster;
import dev.membership.broadcast.LeadershipNotices;
import dev.membership.engine.MembershipNode;
import dev.membership.engine.MembershipNodeBuilder;
import dev.membership.mongo.MongoMembershipStore;
import dev.membership.mongo.MongoStoreSettings;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NoticeChannel;
import dev.membership.spi.NoticeReceiver;
import dev.membership.spi.RunObserver;

/**
 * One membership node as the starter runs it, without Spring: the node, and optionally
 * the broadcast that tells the others about a released lease or a new leader at once. The
 * receiving end is the starter's own {@link BroadcastReceiver} behind the JDK's HTTP
 * server on 127.0.0.1 instead of a servlet container.
 */
public final class BenchNode implements AutoCloseable {

	private final MembershipNode node;

	private final HttpServer http;

	private final ExecutorService httpThreads;

	private final ClusterBroadcaster broadcaster;

	private BenchNode(MembershipNode node, HttpServer http, ExecutorService httpThreads,
			ClusterBroadcaster broadcaster) {
		this.node = node;
		this.http = http;
		this.httpThreads = httpThreads;
		this.broadcaster = broadcaster;
	}

	public static MongoStoreSettings storeSettings(MembershipSettings settings) {
		Duration third = settings.leaseDuration().dividedBy(3);
		Duration timeout = (third.compareTo(Duration.ofSeconds(5)) < 0) ? third : Duration.ofSeconds(5);
		return MongoStoreSettings.defaults().withOperationTimeout(timeout);
	}

	/**
	 * A started node; {@code keyring} null means no broadcast, as when the starter runs
	 * without a web server.
	 */
	public static BenchNode start(MembershipSettings settings, MongoDatabase database, LeadershipObserver observer,
			BroadcastKeyring keyring) {
		return start(settings, database, observer, keyring, List.of());
	}

	/**
	 * As
	 * {@link #start(MembershipSettings, MongoDatabase, LeadershipObserver, BroadcastKeyring)},
	 * runs observed.
	 */
	public static BenchNode start(MembershipSettings settings, MongoDatabase database, LeadershipObserver observer,
			BroadcastKeyring keyring, List<RunObserver> runObservers) {
		return start(settings, new MongoMembershipStore(database, storeSettings(settings)), observer, keyring,
				runObservers);
	}

	/**
	 * As
	 * {@link #start(MembershipSettings, MongoDatabase, LeadershipObserver, BroadcastKeyring)},
	 * on any store.
	 */
	public static BenchNode start(MembershipSettings settings, MembershipStore store, LeadershipObserver observer,
			BroadcastKeyring keyring, List<RunObserver> runObservers) {
		if (keyring == null) {
			MembershipNodeBuilder builder = MembershipNode.builder(settings, store)
				.advertisedAddress("127.0.0.1")
				.observer(observer);
			runObservers.forEach(builder::runObserver);
			MembershipNode node = builder.build();
			node.start();
			return new BenchNode(node, null, null, null);
		}
		HttpServer http;
		try {
			http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		BroadcastSettings broadcast = BroadcastSettings.defaults();
		JsonMapper mapper = JsonMapper.builder().build();
		LeadershipNotices[] notices = new LeadershipNotices[1];
		MembershipNode node = MembershipNode.builder(settings, store)
			.advertisedAddress("127.0.0.1:" + http.getAddress().getPort())
			.observer(observer)
			// as the starter wires it: the notices are one of the node's reactions
			.reaction((event) -> notices[0].onEvent(event))
			.noticeChannel(new NoticeChannel() {
				@Override
				public void connect(NoticeReceiver receiver) {
					notices[0].connect(receiver);
				}

				@Override
				public void letGo(java.util.Map<String, Long> leases, String successor) {
					notices[0].letGo(leases, successor);
				}
			})
			.build();
		BroadcastKeySource keys = BroadcastKeySource.of(keyring);
		ClusterBroadcaster broadcaster = new ClusterBroadcaster(node, keys, mapper, broadcast, BroadcastMetrics.none(),
				(event) -> {
				});
		notices[0] = new LeadershipNotices(node, broadcaster);
		BroadcastReceiver receiver = new BroadcastReceiver(node.nodeId(), keys, mapper, broadcast,
				node::serverTimeEstimate, (event) -> {
					if (LeadershipNotices.isInternal(event.topic())) {
						notices[0].apply(event);
					}
				}, BroadcastMetrics.none());
		ExecutorService threads = Executors.newFixedThreadPool(2, (r) -> {
			Thread t = new Thread(r, "bench-http-" + settings.nodeId());
			t.setDaemon(true);
			return t;
		});
		http.setExecutor(threads);
		http.createContext(broadcast.path(), (exchange) -> receive(receiver, exchange));
		http.start();
		node.start();
		return new BenchNode(node, http, threads, broadcaster);
	}

	private static void receive(BroadcastReceiver receiver, HttpExchange exchange) throws IOException {
		try (exchange; InputStream in = exchange.getRequestBody()) {
			String length = exchange.getRequestHeaders().getFirst("Content-Length");
			BroadcastReceiver.Response answer = receiver.receive(exchange.getRequestHeaders().getFirst("Content-Type"),
					(length != null) ? Long.parseLong(length) : -1, in,
					exchange.getRequestHeaders().getFirst(BroadcastSettings.KEY_ID_HEADER),
					exchange.getRequestHeaders().getFirst(BroadcastSettings.SIGNATURE_HEADER));
			byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders().set("Content-Type", "application/json");
			exchange.sendResponseHeaders(answer.status(), body.length);
			try (OutputStream out = exchange.getResponseBody()) {
				out.write(body);
			}
		}
	}

	public MembershipNode node() {
		return this.node;
	}

	/** Dies without a word: no release, and the HTTP endpoint stops answering. */
	public void crash() {
		this.node.halt();
		stopHttp();
	}

	/** Leaves gracefully: releases its leases and (with broadcast) tells the others. */
	public void leave() {
		this.node.stop(Duration.ofSeconds(5));
	}

	@Override
	public void close() {
		this.node.halt();
		stopHttp();
		if (this.broadcaster != null) {
			this.broadcaster.close();
		}
	}

	private void stopHttp() {
		if (this.http != null) {
			this.http.stop(0);
			this.httpThreads.shutdownNow();
		}
	}

}
