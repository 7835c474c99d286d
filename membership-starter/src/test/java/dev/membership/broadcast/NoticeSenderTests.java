package dev.membership.broadcast;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.membership.broadcast.BroadcastResult.Outcome;
import dev.membership.liveness.Member;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over notice goes to the successor alone; the others get their own notice
 * (which names no successor) only when the successor could not be told.
 */
class NoticeSenderTests {

	private final Map<String, String> received = new ConcurrentHashMap<>();

	private final AtomicInteger posts = new AtomicInteger();

	private HttpServer server;

	private final NoticeSender sender = new NoticeSender(BroadcastSettings.defaults(), BroadcastMetrics.none(),
			(address) -> URI.create("http://" + address));

	@BeforeEach
	void startServer() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
		this.server.createContext("/notice", (exchange) -> {
			this.posts.incrementAndGet();
			try (exchange) {
				String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
				this.received.put(exchange.getRequestURI().getQuery(), body);
				exchange.sendResponseHeaders(200, -1);
			}
		});
		this.server.start();
	}

	@AfterEach
	void stopServer() {
		this.server.stop(0);
	}

	@Test
	void aSuccessorThatWasToldIsTheOnlyOneTold() {
		NoticeSender.Signed named = signed("named");
		List<BroadcastResult.Delivery> deliveries = this.sender.tell(List.of(member("a"), member("b"), member("c")),
				"b", named, () -> {
					throw new AssertionError("the others' notice is not even built when the successor was told");
				});
		assertThat(deliveries).extracting(BroadcastResult.Delivery::nodeId, BroadcastResult.Delivery::outcome)
			.containsExactlyInAnyOrder(Tuple.tuple("a", Outcome.SKIPPED), Tuple.tuple("b", Outcome.DELIVERED),
					Tuple.tuple("c", Outcome.SKIPPED));
		assertThat(this.posts).hasValue(1);
		assertThat(this.received).containsEntry("to=b", "named");
	}

	@Test
	void aSuccessorThatCannotBeReachedLeavesTheOthersToBeToldWithoutItsName() throws IOException {
		NoticeSender.Signed named = signed("named");
		NoticeSender.Signed unnamed = signed("unnamed");
		Member gone = new Member("b", "1", "127.0.0.1:" + closedPort() + "/notice?to=b", Instant.now(), Instant.now(),
				List.of(), true);
		List<BroadcastResult.Delivery> deliveries = this.sender.tell(List.of(member("a"), gone, member("c")), "b",
				named, () -> unnamed);
		assertThat(deliveries).extracting(BroadcastResult.Delivery::nodeId, BroadcastResult.Delivery::outcome)
			.containsExactlyInAnyOrder(Tuple.tuple("a", Outcome.DELIVERED), Tuple.tuple("b", Outcome.FAILED),
					Tuple.tuple("c", Outcome.DELIVERED));
		assertThat(this.received).containsEntry("to=a", "unnamed").containsEntry("to=c", "unnamed");
	}

	private Member member(String id) {
		// the query tells the server whom a post was meant for
		return new Member(id, "1", "127.0.0.1:" + this.server.getAddress().getPort() + "/notice?to=" + id,
				Instant.now(), Instant.now(), List.of(), true);
	}

	private static NoticeSender.Signed signed(String body) {
		return NoticeSender.Signed.of(body.getBytes(StandardCharsets.UTF_8),
				BroadcastKeyring.ofStrings(List.of("k".repeat(32))));
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
