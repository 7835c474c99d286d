package dev.membership.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.membership.spi.MembershipSettings;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.TestCluster;

import static dev.membership.testsupport.TestCluster.INTERVAL;
import static dev.membership.testsupport.TestCluster.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Five nodes, random faults for a bounded number of rounds; every leadership belief of
 * every node is recorded on this JVM's monotonic clock and checked: no two overlap in a
 * group, epochs only grow, and after each fault heals a leader is back within lease +
 * interval (+ slack for a 2-core machine; + the driver's reconnect after a real outage).
 * <p>
 * Rerun a failing sequence with
 * {@code -Dmembership.faults.seed=<seed printed by the failing run>}.
 */
@ExtendWith(FastPolling.class)
class RandomizedFaultTests {

	private static final String GROUP = MembershipSettings.DEFAULT_GROUP;

	private static final int ROUNDS = 24;

	private static final Duration SLACK = Duration.ofMillis(250);

	/** The driver re-checks a failed server at most every 500 ms. */
	private static final Duration RECONNECT = Duration.ofMillis(1000);

	enum Fault {

		KILL_LEADER, KILL_FOLLOWER, PAUSE_LEADER, LEADER_STORE_DOWN, LEADER_CALLS_HANG, DATABASE_OUTAGE, ALL_SLOW,
		FOLLOWER_STORE_DOWN

	}

	@Test
	void noTwoLeadersOverlapAndLeadershipReturnsAfterEveryFault() {
		long seed = Long.getLong("membership.faults.seed", System.nanoTime());
		Random random = new Random(seed);
		System.out.println("fault test seed: " + seed);
		Map<Fault, Integer> injected = new EnumMap<>(Fault.class);
		List<Long> recoveries = new ArrayList<>();
		try (EmbeddedMongo mongo = new EmbeddedMongo(); TestCluster cluster = mongo.cluster()) {
			List<String> ids = List.of("n1", "n2", "n3", "n4", "n5");
			ids.forEach(cluster::start);
			await().atMost(Duration.ofSeconds(5)).until(() -> cluster.leaders(GROUP).size() == 1);
			long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
			for (int round = 0; round < ROUNDS && System.nanoTime() < deadline; round++) {
				Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
				injected.merge(fault, 1, Integer::sum);
				List<MembershipNode> leaders = cluster.leaders(GROUP);
				MembershipNode leader = leaders.isEmpty() ? null : leaders.get(0);
				List<MembershipNode> followers = cluster.running().stream().filter((n) -> n != leader).toList();
				MembershipNode follower = followers.get(random.nextInt(followers.size()));
				MembershipNode target = (leader != null) ? leader : follower;
				String killed = null;
				switch (fault) {
					case KILL_LEADER -> {
						killed = target.nodeId();
						target.halt();
					}
					case KILL_FOLLOWER -> {
						killed = follower.nodeId();
						follower.halt();
					}
					// a paused process: its calls still take effect, late
					case PAUSE_LEADER -> cluster.store(target.nodeId()).slow(200 + random.nextInt(800));
					case LEADER_STORE_DOWN -> cluster.store(target.nodeId()).down();
					case LEADER_CALLS_HANG -> cluster.store(target.nodeId()).hang();
					case DATABASE_OUTAGE -> mongo.stop();
					case ALL_SLOW ->
						cluster.running().forEach((n) -> cluster.store(n.nodeId()).slow(random.nextInt(60)));
					case FOLLOWER_STORE_DOWN -> cluster.store(follower.nodeId()).down();
				}
				holdFault(Duration.ofMillis(100 + random.nextInt(1100)));
				cluster.healAll();
				mongo.start();
				if (killed != null) {
					cluster.start(killed);
				}
				long healed = System.nanoTime();
				Duration bound = LEASE.plus(INTERVAL)
					.plus(SLACK)
					.plus((fault == Fault.DATABASE_OUTAGE) ? RECONNECT : Duration.ZERO);
				// a paused node's last delayed call may still be in flight; it cannot
				// extend any belief
				await("a leader after " + fault + " in round " + round).atMost(bound.plus(Duration.ofSeconds(1)))
					.until(() -> cluster.leaders(GROUP).size() == 1);
				// from the recorder's clock, not from when this thread saw a leader: the
				// first instant after the heal at which some node believed (one that led
				// through the fault counts from the heal; a leader that lost its lease
				// again right after is still the first one back)
				long began = cluster.recorder()
					.intervals()
					.stream()
					.filter((i) -> i.group().equals(GROUP) && i.endNanos() > healed)
					.mapToLong((i) -> Math.max(i.startNanos(), healed))
					.min()
					.orElseThrow();
				long recovery = Math.max(0, began - healed);
				recoveries.add(recovery / 1_000_000);
				assertThat(Duration.ofNanos(recovery)).as("leader back after %s in round %d", fault, round)
					.isLessThanOrEqualTo(bound);
				cluster.recorder().assertSafe();
			}
			cluster.recorder().assertSafe();
			int transitions = cluster.recorder().transitions();
			System.out.printf(
					"fault test: %d rounds %s, %d leadership transitions checked, "
							+ "%d intervals, recovery after heal max %d ms, all %s%n",
					injected.values().stream().mapToInt(Integer::intValue).sum(), injected, transitions,
					cluster.recorder().intervals().size(),
					recoveries.stream().mapToLong(Long::longValue).max().orElse(0), recoveries);
			// the first leader's start, then an end and a start at least for every leader
			// killed (a leader paused, cut off or hung for a short fault may keep its
			// lease: a fixed share of the rounds failed on seeds that drew few kills,
			// 75889805447823 among them)
			assertThat(transitions).isGreaterThanOrEqualTo(1 + 2 * injected.getOrDefault(Fault.KILL_LEADER, 0));
		}
	}

	private static void holdFault(Duration duration) {
		try {
			// how long the fault lasts, not a wait for anything
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
