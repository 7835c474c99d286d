package dev.membership.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many clients racing for the same few leases on a real PostgreSQL server, each on a
 * connection of its own, for ten seconds in the build
 * ({@code -Dmembership.jdbc.race=PT60S} for a minute): acquisitions, take-overs of terms
 * their holders let go, renewals one by one and all at once, and releases, with leases of
 * 5 to 60 ms so that they expire all the time. Every answer is recorded, and then: no
 * epoch of a lease was handed out twice, every lease's epochs are 1, 2, 3, ... in the
 * order of the server's stamps, and no renewal of a term succeeded after the next term
 * began.
 */
class LeaseRaceTests {

	@RegisterExtension
	static final EmbeddedPostgres postgres = new EmbeddedPostgres();

	private static final List<String> LEASES = List.of("a", "b", "c");

	private static final int CLIENTS = 8;

	record Acquired(String lease, long epoch, String node, Instant at) {
	}

	record Renewed(String lease, long epoch, Instant at) {
	}

	private final ConcurrentLinkedQueue<Acquired> acquired = new ConcurrentLinkedQueue<>();

	private final ConcurrentLinkedQueue<Renewed> renewed = new ConcurrentLinkedQueue<>();

	@Test
	void neverTwoHoldersOfOneEpochAndEpochsStrictlyIncrease() throws Exception {
		Duration race = Duration.parse(System.getProperty("membership.jdbc.race", "PT10S"));
		JdbcStoreSettings settings = JdbcStoreSettings.defaults().withTablePrefix("race_");
		new JdbcMembershipStore(postgres.dataSource(), settings).initialize();
		ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
		List<Future<Long>> clients = new ArrayList<>();
		long deadline = System.nanoTime() + race.toNanos();
		for (int i = 0; i < CLIENTS; i++) {
			String node = "n" + i;
			clients.add(pool.submit(() -> client(node, settings, deadline)));
		}
		long operations = 0;
		for (Future<Long> client : clients) {
			operations += client.get(race.toSeconds() + 60, TimeUnit.SECONDS);
		}
		pool.shutdown();
		Map<String, List<Acquired>> byLease = new HashMap<>();
		this.acquired.forEach((a) -> byLease.computeIfAbsent(a.lease(), (k) -> new ArrayList<>()).add(a));
		long terms = 0;
		for (String lease : LEASES) {
			List<Acquired> terms0 = byLease.getOrDefault(lease, List.of());
			List<Acquired> inOrder = new ArrayList<>(terms0);
			inOrder.sort(Comparator.comparingLong(Acquired::epoch));
			for (int i = 0; i < inOrder.size(); i++) {
				assertThat(inOrder.get(i).epoch())
					.as("epoch %d of lease %s (handed out once, none skipped)", i + 1, lease)
					.isEqualTo(i + 1);
				if (i > 0) {
					assertThat(inOrder.get(i).at()).as("epoch %d of %s begins no earlier than %d", i + 1, lease, i)
						.isAfterOrEqualTo(inOrder.get(i - 1).at());
				}
			}
			for (Renewed r : this.renewed) {
				if (r.lease().equals(lease) && r.epoch() < inOrder.size()) {
					assertThat(r.at())
						.as("a renewal of %s's epoch %d after epoch %d began", lease, r.epoch(), r.epoch() + 1)
						.isBeforeOrEqualTo(inOrder.get((int) r.epoch()).at());
				}
			}
			terms += inOrder.size();
		}
		System.out.printf(
				"PostgreSQL lease race: %d clients, %d s, %,d operations, %,d terms of %d leases, %,d "
						+ "renewals checked: no epoch twice, none skipped, no renewal after the next term%n",
				CLIENTS, race.toSeconds(), operations, terms, LEASES.size(), this.renewed.size());
		assertThat(terms).isGreaterThan(100);
	}

	private long client(String node, JdbcStoreSettings settings, long deadline) throws SQLException {
		try (Connection connection = postgres.dataSource().getConnection()) {
			JdbcMembershipStore store = new JdbcMembershipStore(new SingleConnectionDataSource(connection, true),
					settings);
			Holder holder = new Holder(node, node + "-1", null);
			Map<String, Long> held = new HashMap<>();
			ThreadLocalRandom random = ThreadLocalRandom.current();
			long operations = 0;
			while (System.nanoTime() < deadline) {
				operations++;
				String lease = LEASES.get(random.nextInt(LEASES.size()));
				Instant now = store.serverTime().orElseThrow();
				Instant expiresAt = now.plusMillis(5 + random.nextInt(55));
				int op = random.nextInt(10);
				if (op < 4) {
					Optional<LeaseRecord> taken = store.tryAcquire(lease, holder, now, expiresAt);
					taken.ifPresent((t) -> took(t, held));
				}
				else if (op < 5) {
					// a take-over of whatever term another node holds now, as if it had
					// said it let go
					Optional<LeaseRecord> current = store.findLease(lease);
					if (current.isPresent() && current.get().holder() != null) {
						store
							.tryTakeOver(lease, holder, current.get().holder().nodeId(), current.get().epoch(), now,
									expiresAt)
							.ifPresent((t) -> took(t, held));
					}
				}
				else if (op < 7 && held.containsKey(lease)) {
					long epoch = held.get(lease);
					store.renew(lease, holder, epoch, expiresAt, null)
						.ifPresent((at) -> this.renewed.add(new Renewed(lease, epoch, at)));
				}
				else if (op < 8 && !held.isEmpty()) {
					store.renewAll(holder, Map.copyOf(held), expiresAt, Map.of());
				}
				else if (op < 9 && held.containsKey(lease)) {
					store.release(lease, holder, held.remove(lease), null);
				}
				else if (!held.isEmpty()) {
					store.releaseAll(holder, Map.copyOf(held), java.util.Map.of());
					held.clear();
				}
			}
			return operations;
		}
	}

	private void took(LeaseRecord lease, Map<String, Long> held) {
		held.put(lease.group(), lease.epoch());
		this.acquired.add(new Acquired(lease.group(), lease.epoch(), lease.holder().nodeId(), lease.acquiredAt()));
	}

}
