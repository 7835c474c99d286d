package dev.membership.actuate;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.Membership;
import dev.membership.broadcast.BroadcastMetrics;
import dev.membership.event.MembershipEvent;
import dev.membership.event.MembershipEventListener;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.LeaderOnlyExecutionListener;
import dev.membership.spi.MembershipStore;

/**
 * Every metric operators should watch. Tag values are bounded: groups (configured or
 * annotated), outcomes, store operations, {@code @LeaderOnly} methods, and member node
 * ids (their gauges go when the member's document goes).
 */
public class MembershipMeters
		implements ElectionMetrics, LeaderOnlyExecutionListener, BroadcastMetrics, MembershipEventListener {

	private final Supplier<Membership> membership;

	private final Set<String> gaugedGroups = ConcurrentHashMap.newKeySet();

	private final Set<String> countedJobs = ConcurrentHashMap.newKeySet();

	private static final Logger log = LoggerFactory.getLogger(MembershipMeters.class);

	private final MeterRegistry registry;

	/** Whether recording a store call's time failed once (warned of once). */
	private final AtomicBoolean recordingFailed = new AtomicBoolean();

	private final MultiGauge heartbeats;

	private final PartitionMeters partitions;

	/** The membership is looked up lazily: the node itself reports to these meters. */
	public MembershipMeters(MeterRegistry registry, Supplier<Membership> membership) {
		this.registry = registry;
		this.membership = membership;
		this.partitions = new PartitionMeters(registry);
		Gauge.builder("membership.members.live", this.membership, (m) -> m.get().liveMembers().size())
			.description("Live members as this node sees them")
			.register(registry);
		this.heartbeats = MultiGauge.builder("membership.heartbeat.last")
			.description("Time of this node's last heartbeat or renewal (database time); other members' are in the "
					+ "roster, as of its last write")
			.baseUnit("seconds")
			.register(registry);
		zero(counter(CLOCK_JUMPS));
		zero(counter(HISTORY_DROPPED));
	}

	@Override
	public void onEvent(MembershipEvent event) {
		refresh();
		this.partitions.onEvent(event);
	}

	/**
	 * Picks up new groups and the current member set; called on every membership event.
	 */
	public void refresh() {
		MeterRegistry r = this.registry;
		Membership m = this.membership.get();
		if (m == null) {
			return;
		}
		for (String group : m.groups()) {
			if (m.partitionedGroups().contains(group)) {
				if (this.gaugedGroups.add(group)) {
					this.partitions.register(m, group);
				}
				continue;
			}
			if (this.gaugedGroups.add(group)) {
				Gauge.builder("membership.leader", m, (x) -> x.isLeader(group) ? 1 : 0)
					.description("1 when this node leads the group")
					.tags("group", group)
					.register(r);
				Gauge
					.builder("membership.leader.epoch", m,
							(x) -> x.leader(group).map((l) -> (double) l.epoch()).orElse(Double.NaN))
					.description("Epoch (fencing token) of the group's current leader")
					.tags("group", group)
					.register(r);
				// present at zero from the start, so rate() and alerts never see a
				// missing series
				for (AcquisitionOutcome outcome : AcquisitionOutcome.values()) {
					zero(counter(ACQUISITIONS, "group", group, "outcome", outcome.name().toLowerCase(Locale.ROOT)));
				}
				for (RenewalOutcome outcome : RenewalOutcome.values()) {
					zero(counter(RENEWALS, "group", group, "outcome", outcome.name().toLowerCase(Locale.ROOT)));
				}
			}
		}
		// each scheduled job's missed fires at zero from the start: a counter that first
		// appears at 3 shows no increase(), and an alert on it would never fire
		for (dev.membership.leadership.ScheduledJobInfo job : m.scheduledJobs()) {
			if (this.countedJobs.add(job.group() + "\u0000" + job.job())) {
				zero(counter(RUNS_MISSED, "group", job.group(), "job", job.job()));
			}
		}
		// this node only: another member's last heartbeat is known as of the roster's
		// last write, too coarse to alert on
		this.heartbeats.register(
				List.of(MultiGauge.Row.of(Tags.of("node", m.nodeId()), m, MembershipMeters::lastHeartbeatSeconds)),
				true);
	}

	private static double lastHeartbeatSeconds(Membership membership) {
		Duration age = membership.status().lastHeartbeatAge();
		Optional<Instant> now = membership.serverTimeEstimate();
		return (age != null && now.isPresent()) ? now.get().minus(age).toEpochMilli() / 1000d : Double.NaN;
	}

	@Override
	public void acquisition(String group, AcquisitionOutcome outcome) {
		counter(ACQUISITIONS, "group", group, "outcome", outcome.name().toLowerCase(Locale.ROOT)).increment();
	}

	@Override
	public void renewal(String group, RenewalOutcome outcome) {
		counter(RENEWALS, "group", group, "outcome", outcome.name().toLowerCase(Locale.ROOT)).increment();
	}

	@Override
	public void clockJumped(Duration jump) {
		counter(CLOCK_JUMPS).increment();
	}

	@Override
	public void runsDropped(long count) {
		counter(HISTORY_DROPPED).increment(count);
	}

	@Override
	public void firesMissed(String group, String job, long count) {
		counter(RUNS_MISSED, "group", group, "job", job).increment(count);
	}

	@Override
	public void executed(String group, String method) {
		counter(LEADER_ONLY_EXECUTIONS, "group", group, "method", method, "outcome", "executed").increment();
	}

	@Override
	public void skipped(String group, String method) {
		counter(LEADER_ONLY_EXECUTIONS, "group", group, "method", method, "outcome", "skipped").increment();
	}

	@Override
	public Runnable executions(String group, String method) {
		return counter(LEADER_ONLY_EXECUTIONS, "group", group, "method", method, "outcome", "executed")::increment;
	}

	@Override
	public Runnable skips(String group, String method) {
		return counter(LEADER_ONLY_EXECUTIONS, "group", group, "method", method, "outcome", "skipped")::increment;
	}

	@Override
	public void register() {
		for (Sent outcome : Sent.values()) {
			zero(counter(BROADCASTS_SENT, "outcome", outcome.name().toLowerCase(Locale.ROOT)));
		}
		for (Received outcome : Received.values()) {
			zero(counter(BROADCASTS_RECEIVED, "outcome", outcome.name().toLowerCase(Locale.ROOT)));
		}
	}

	@Override
	public void sent(Sent outcome) {
		counter(BROADCASTS_SENT, "outcome", outcome.name().toLowerCase(Locale.ROOT)).increment();
	}

	@Override
	public void received(Received outcome) {
		counter(BROADCASTS_RECEIVED, "outcome", outcome.name().toLowerCase(Locale.ROOT)).increment();
	}

	private Counter counter(Meter meter, String... tags) {
		return Counter.builder(meter.name).description(meter.description).tags(tags).register(this.registry);
	}

	/**
	 * A composite registry creates its children's meters on first use: touch it so the
	 * series exists.
	 */
	private static void zero(Counter counter) {
		counter.increment(0);
	}

	private record Meter(String name, String description) {
	}

	private static final Meter ACQUISITIONS = new Meter("membership.leadership.acquisitions",
			"Leadership acquisition attempts");

	private static final Meter RENEWALS = new Meter("membership.leadership.renewals", "Lease renewals");

	private static final Meter CLOCK_JUMPS = new Meter("membership.clock.jumps",
			"Samples of the database's clock that contradicted this node's estimate beyond the safety margin");

	private static final Meter RUNS_MISSED = new Meter("membership.runs.missed",
			"Scheduled fires that never ran: missed beyond their catch-up window, or not caught up by their policy");

	private static final Meter HISTORY_DROPPED = new Meter("membership.history.dropped",
			"Runs whose records were dropped from this node's buffer before the run history could be written");

	private static final Meter LEADER_ONLY_EXECUTIONS = new Meter("membership.leader.only.executions",
			"@LeaderOnly calls");

	private static final Meter BROADCASTS_SENT = new Meter("membership.broadcast.sent",
			"Broadcast messages sent, per member");

	private static final Meter BROADCASTS_RECEIVED = new Meter("membership.broadcast.received",
			"Broadcast messages received");

	/**
	 * Records one store call's time; what the registry throws (an application's meter
	 * filter) stays here, so that a call's own answer, a won lease say, is what the node
	 * gets.
	 */
	private void record(String operation, long nanos) {
		try {
			Timer.builder("membership.store.operations")
				.description("Calls to the membership store")
				.tag("operation", operation)
				.register(this.registry)
				.record(nanos, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			if (this.recordingFailed.compareAndSet(false, true)) {
				log.warn("Could not record a membership store call's time (ignored; later failures are not logged)",
						ex);
			}
		}
	}

	/** Times every store call as {@code membership.store.operations{operation=...}}. */
	public MembershipStore timed(MembershipStore store) {
		return (MembershipStore) Proxy.newProxyInstance(MembershipStore.class.getClassLoader(),
				new Class<?>[] { MembershipStore.class }, (proxy, method, args) -> {
					if (method.getDeclaringClass() == Object.class) {
						return method.invoke(store, args);
					}
					long start = System.nanoTime();
					try {
						return method.invoke(store, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
					finally {
						record(method.getName(), System.nanoTime() - start);
					}
				});
	}

}
