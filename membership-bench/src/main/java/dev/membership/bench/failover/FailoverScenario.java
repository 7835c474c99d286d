package dev.membership.bench.failover;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.membership.bench.support.Stats;
import dev.membership.bench.support.Table;
import dev.membership.bench.support.Waits;

/**
 * Failover latency: three members per library; the leader crashes (no release, its
 * connection goes silent) or leaves gracefully; the time from that instant until another
 * member learns it leads. The crash comes at a random point of the renewal cycle.
 * Libraries alternate trial by trial; with long leases they run side by side, since
 * milliseconds of interference do not matter against seconds of lease.
 */
public final class FailoverScenario {

	public enum Kind {

		CRASH, GRACEFUL

	}

	public record Settings(List<Duration> leases, int trials, Duration parallelFrom) {
	}

	private final Settings settings;

	private final PrintStream log;

	public FailoverScenario(Settings settings, PrintStream log) {
		this.settings = settings;
		this.log = log;
	}

	public Table run() throws Exception {
		List<Contender> contenders = new ArrayList<>();
		try {
			contenders.add(new MembershipContender());
			contenders.add(new CuratorContender());
			contenders.add(new SpringIntegrationContender());
			Table table = run("Failover latency (3 members each; " + this.settings.trials() + " trials per row)",
					contenders);
			table.note("Crash: ours halts the node (no release, HTTP endpoint closed); Curator's member is cut off "
					+ "from ZooKeeper by a TCP proxy that goes dark (its session stays open until it times out); "
					+ "Spring Integration's member loses its database before its initiator stops, so its lock row "
					+ "stays. Graceful: ours stops the node (release + broadcast), Curator closes the latch, Spring "
					+ "Integration stops the initiator (unlock). Latency: from that instant until another member's own "
					+ "callback says it leads (ours: the moment its belief starts; Curator: isLeader(); Spring "
					+ "Integration: onGranted()).");
			return table;
		}
		finally {
			for (Contender contender : contenders) {
				contender.close();
			}
		}
	}

	/**
	 * The trials of {@code contenders} (closed by the caller), as a table titled
	 * {@code title}.
	 */
	public Table run(String title, List<Contender> contenders) throws Exception {
		Table table = new Table(title, "library", "settings", "after", "median ms", "p90 ms", "max ms", "min ms",
				"ours: after lease expiry, median / max ms");
		for (Duration lease : this.settings.leases()) {
			for (Kind kind : Kind.values()) {
				Map<Contender, Trials> results = runAll(contenders, lease, kind);
				for (Contender contender : contenders) {
					Trials trials = results.get(contender);
					Stats stats = new Stats(trials.latencies);
					Stats afterExpiry = new Stats(trials.afterExpiry);
					String expiry = (contender instanceof LeaseProbe && kind == Kind.CRASH)
							? Table.ms(afterExpiry.median()) + " / " + Table.ms(afterExpiry.max()) : "";
					table.row(contender.name(), contender.describe(lease), kind.name().toLowerCase(Locale.ROOT),
							Table.ms(stats.median()), Table.ms(stats.percentile(90)), Table.ms(stats.max()),
							Table.ms(stats.min()), expiry);
				}
			}
		}
		return table;
	}

	private Map<Contender, Trials> runAll(List<Contender> contenders, Duration lease, Kind kind) throws Exception {
		Map<Contender, Trials> results = new LinkedHashMap<>();
		Map<Contender, Group> groups = new LinkedHashMap<>();
		for (Contender contender : contenders) {
			results.put(contender, new Trials());
			groups.put(contender, new Group(contender, lease));
		}
		try {
			// long crash trials side by side, to save time; graceful hand-overs one at a
			// time, so that none of them competes with another library's for the two
			// cores
			boolean parallel = kind == Kind.CRASH && lease.compareTo(this.settings.parallelFrom()) >= 0;
			ExecutorService pool = Executors.newFixedThreadPool(contenders.size());
			try {
				for (int i = 0; i < this.settings.trials(); i++) {
					if (parallel) {
						List<Future<?>> running = new ArrayList<>();
						for (Contender contender : contenders) {
							running.add(pool.submit(() -> {
								groups.get(contender).trial(kind, results.get(contender));
								return null;
							}));
						}
						for (Future<?> f : running) {
							f.get();
						}
					}
					else {
						for (Contender contender : contenders) {
							groups.get(contender).trial(kind, results.get(contender));
						}
					}
					this.log.printf("  lease %d ms, %s, trial %d/%d done%n", lease.toMillis(),
							kind.name().toLowerCase(Locale.ROOT), i + 1, this.settings.trials());
				}
			}
			finally {
				pool.shutdownNow();
			}
		}
		finally {
			groups.values().forEach(Group::dispose);
		}
		return results;
	}

	static final class Trials {

		final List<Double> latencies = new ArrayList<>();

		final List<Double> afterExpiry = new ArrayList<>();

	}

	/** Three members of one library, replaced as they crash or leave. */
	private final class Group {

		private final Contender contender;

		private final Duration lease;

		private final List<Contender.Member> members = new ArrayList<>();

		private final Map<String, Long> electedAt = new ConcurrentHashMap<>();

		private final AtomicInteger ids = new AtomicInteger();

		Group(Contender contender, Duration lease) throws Exception {
			this.contender = contender;
			this.lease = lease;
			for (int i = 0; i < 3; i++) {
				addMember();
			}
		}

		private void addMember() throws Exception {
			String id = "m" + this.ids.incrementAndGet();
			this.members.add(this.contender.join(id, this.lease, (member, at) -> this.electedAt.put(member, at)));
		}

		void trial(Kind kind, Trials into) throws Exception {
			Duration bound = this.lease.multipliedBy(4).plusSeconds(10);
			Contender.Member leader = awaitSingleLeader(bound);
			// a random point of the renewal cycle
			Waits.pause(Duration.ofNanos(ThreadLocalRandom.current().nextLong(this.lease.toNanos() / 3 + 1)));
			long before = System.nanoTime();
			if (kind == Kind.CRASH) {
				leader.crash();
			}
			else {
				leader.leave();
			}
			// the crashed leader writes nothing more: the lease in the database now ends
			// when its last renewal said
			Instant expiry = (kind == Kind.CRASH && this.contender instanceof LeaseProbe ours)
					? ours.leaseExpiry(this.lease) : null;
			String[] successor = new String[1];
			long[] elected = new long[1];
			Waits.until(this.contender.name() + " to elect a new leader", bound, () -> {
				for (Contender.Member m : this.members) {
					Long at = this.electedAt.get(m.id());
					if (m != leader && at != null && at - before > 0) {
						successor[0] = m.id();
						elected[0] = at;
						return true;
					}
				}
				return false;
			});
			into.latencies.add((elected[0] - before) / 1e6);
			if (expiry != null) {
				Long electedMillis = ((LeaseProbe) this.contender).electedAtMillis(successor[0]);
				into.afterExpiry.add((double) (electedMillis - expiry.toEpochMilli()));
			}
			this.members.remove(leader);
			leader.dispose();
			addMember();
		}

		private Contender.Member awaitSingleLeader(Duration bound) {
			Contender.Member[] found = new Contender.Member[1];
			Waits.until(this.contender.name() + " to settle on one leader", bound, () -> {
				Contender.Member leader = null;
				int count = 0;
				for (Contender.Member m : this.members) {
					if (m.isLeader()) {
						leader = m;
						count++;
					}
				}
				found[0] = leader;
				return count == 1;
			});
			return found[0];
		}

		void dispose() {
			this.members.forEach(Contender.Member::dispose);
			this.members.clear();
		}

	}

}
