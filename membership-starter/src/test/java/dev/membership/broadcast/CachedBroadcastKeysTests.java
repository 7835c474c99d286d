package dev.membership.broadcast;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import dev.membership.spi.StoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Keys a store keeps: read one at a time (the messages that find them stale wait for that
 * read), and rotated in the documented order (accept the new key, then sign with it, then
 * drop the old one, each step once every node has the last) with not one message refused
 * between two nodes whose caches refresh at different moments; the order that signs with
 * a new key at once is refused meanwhile.
 */
class CachedBroadcastKeysTests {

	private static final String OLD = "o".repeat(32);

	private static final String NEW = "n".repeat(32);

	/**
	 * A short cache life, so that a rotation's step waits little; the nodes' reads half
	 * of it apart.
	 */
	private static final Duration REFRESH = Duration.ofMillis(600);

	private final JsonMapper mapper = new JsonMapper();

	/** The store's keys, as an operator edits them. */
	private volatile List<String> stored = List.of(OLD);

	@Test
	void oneReadAtATimeTheOthersWaitForItsAnswer() throws Exception {
		AtomicInteger loads = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		CachedBroadcastKeys keys = new CachedBroadcastKeys() {
			@Override
			protected BroadcastKeyring load() {
				loads.incrementAndGet();
				waitFor(release);
				return BroadcastKeyring.ofStrings(List.of(NEW));
			}
		};
		ExecutorService callers = Executors.newFixedThreadPool(8);
		try {
			List<Future<BroadcastKeyring>> answers = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				answers.add(callers.submit(keys::keyring));
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> loads.get() == 1);
			release.countDown();
			for (Future<BroadcastKeyring> answer : answers) {
				assertThat(answer.get(5, TimeUnit.SECONDS).primaryKeyId()).isEqualTo(keys.keyring().primaryKeyId());
			}
			assertThat(loads.get()).as("one read for eight callers").isEqualTo(1);
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void aFailedReadIsEveryWaitersAnswerWithoutAReadOfTheirOwn() throws Exception {
		AtomicInteger loads = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		CachedBroadcastKeys keys = new CachedBroadcastKeys() {
			@Override
			protected BroadcastKeyring load() {
				loads.incrementAndGet();
				waitFor(release);
				throw new StoreException("store down (injected)", null);
			}
		};
		ExecutorService callers = Executors.newFixedThreadPool(4);
		try {
			List<Future<BroadcastKeyring>> answers = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				answers.add(callers.submit(keys::keyring));
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> loads.get() == 1);
			release.countDown();
			for (Future<BroadcastKeyring> answer : answers) {
				assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
					.isThrownBy(() -> answer.get(5, TimeUnit.SECONDS))
					.withCauseInstanceOf(StoreException.class);
			}
			assertThat(loads.get()).isEqualTo(1);
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void aRotationInTheDocumentedOrderRefusesNoMessageBetweenTwoNodes() throws Exception {
		Node a = new Node("a");
		Node b = new Node("b");
		startStaggered(a, b);
		Exchange exchange = new Exchange(a, b);
		// 1. every node accepts the new key; none signs with it
		this.stored = List.of(OLD, NEW);
		exchange.during(REFRESH.multipliedBy(2));
		this.stored = List.of(NEW, OLD); // 2. once every node has it: it signs
		exchange.during(REFRESH.multipliedBy(2));
		this.stored = List.of(NEW); // 3. once every node signs with it: the old key goes
		exchange.during(REFRESH.multipliedBy(2));
		System.out.printf("key rotation in the documented order: %d messages, %d refused%n", exchange.sent,
				exchange.refused);
		assertThat(exchange.sent).isGreaterThan(100);
		assertThat(exchange.refused).isZero();
		assertThat(a.keys.keyring().primaryKeyId()).isEqualTo(BroadcastKeyring.ofStrings(List.of(NEW)).primaryKeyId());
	}

	@Test
	void signingWithANewKeyAtOnceIsRefusedByANodeThatHasNotReadItYet() throws Exception {
		Node a = new Node("a");
		Node b = new Node("b");
		startStaggered(a, b);
		Exchange exchange = new Exchange(a, b);
		// the new key first at once: a signs with it before b knows it
		this.stored = List.of(NEW, OLD);
		exchange.during(REFRESH.multipliedBy(2));
		System.out.printf("key rotation, new key first at once: %d messages, %d refused%n", exchange.sent,
				exchange.refused);
		assertThat(exchange.refused).isPositive();
	}

	/**
	 * a reads the keys first, b half a cache life later: their caches refresh at
	 * different moments.
	 */
	private static void startStaggered(Node a, Node b) throws InterruptedException {
		a.keys.keyring();
		long readAt = System.nanoTime();
		await().atMost(REFRESH).until(() -> System.nanoTime() - readAt >= REFRESH.toNanos() / 2);
		b.keys.keyring();
	}

	private static void waitFor(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A node: its cache of the stored keys, and its receiver. */
	private final class Node {

		final String id;

		final CachedBroadcastKeys keys = new CachedBroadcastKeys(REFRESH) {
			@Override
			protected BroadcastKeyring load() {
				return BroadcastKeyring.ofStrings(CachedBroadcastKeysTests.this.stored);
			}
		};

		final BroadcastReceiver receiver;

		Node(String id) {
			this.id = id;
			this.receiver = new BroadcastReceiver(
					id, this.keys, CachedBroadcastKeysTests.this.mapper, new BroadcastSettings("/b",
							Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMinutes(1), 1024, false),
					() -> Optional.of(Instant.now()), (event) -> {
					}, BroadcastMetrics.none());
		}

		/**
		 * Signs a message with this node's keys for {@code to}, as the broadcaster does,
		 * and hands it over.
		 */
		int send(Node to) {
			BroadcastKeyring keyring = this.keys.keyring();
			byte[] body = ("{\"id\":\"" + UUID.randomUUID() + "\",\"sender\":\"" + this.id + "\",\"topic\":\"t\","
					+ "\"sentAt\":" + Instant.now().toEpochMilli() + ",\"payload\":{}}")
				.getBytes(StandardCharsets.UTF_8);
			return to.receiver
				.receive("application/json", body.length, new ByteArrayInputStream(body), keyring.primaryKeyId(),
						keyring.sign(to.id, body))
				.status();
		}

	}

	/**
	 * Both nodes send to each other, a message each every millisecond or so, counting
	 * what was refused.
	 */
	private static final class Exchange {

		private final Node a;

		private final Node b;

		int sent;

		int refused;

		Exchange(Node a, Node b) {
			this.a = a;
			this.b = b;
		}

		void during(Duration duration) {
			await().during(duration).atMost(duration.plusSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> {
				for (int status : new int[] { this.a.send(this.b), this.b.send(this.a) }) {
					this.sent++;
					this.refused += (status == 200) ? 0 : 1;
				}
				return true;
			});
		}

	}

}
