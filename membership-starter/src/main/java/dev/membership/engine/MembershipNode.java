package dev.membership.engine;

import dev.membership.spi.NodeRuntime;

import dev.membership.MembershipStatus;

import dev.membership.MembershipEventListener;

import dev.membership.Membership;

import dev.membership.spi.LeadershipObserver;

import dev.membership.spi.ElectionMetrics;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.engine.Lifecycle.Phase;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.liveness.Member;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.MonotonicClock;
import dev.membership.engine.ServerClock;

/**
 * One cluster member: heartbeats, the member roster and leader leases, driven from a store, a clock and settings. Plain
 * Java, so tests and benchmarks can run many nodes in one JVM, and a simulator many nodes in virtual time.
 * <p>
 * The parts: {@link NodeLoop} runs the loop's jobs and makes the store calls, {@link ElectionRound} says what a tick
 * does, {@link Campaign} when and how to try for a lease, {@link GroupElection} holds a group's term and deadline,
 * {@link LeaderKnowledge} what is known of another leader, {@link MemberRoster} the members with their joins and
 * leaves, {@link EventDispatch} delivers events. This class is the entry point: lifecycle, drain and queries. The
 * {@link NodeRuntime} says where all of it runs: by default one loop thread (every store call, serially), one watchdog
 * (ends a belief at its deadline even when the loop is stuck in a call) and two event threads.
 */
public final class MembershipNode implements Membership, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final MembershipSettings settings;

	private final MonotonicClock clock;

	private final Supplier<String> advertisedAddress;

	private final LeadershipObserver observer;

	private final String incarnation = UUID.randomUUID().toString();

	private final Map<String, GroupElection> groups = new ConcurrentHashMap<>();

	private final Lifecycle lifecycle = new Lifecycle();

	/** Completes when a stop has done its work, so that a second caller of stop() returns no earlier than the first. */
	private final CompletableFuture<Void> stopped = new CompletableFuture<>();

	private final NodeRuntime runtime;

	private final EventDispatch events;

	private final ServerClock serverClock;

	private final NodeLoop loop;

	private final MemberRoster roster;

	private final ElectionRound round;

	private final HandOver handOver;

	private final List<MembershipEventListener> fixedReactions;

	private final Supplier<? extends List<? extends MembershipEventListener>> lateReactions;

	private volatile Holder holder;

	private MembershipNode(Builder b) {
		this.settings = b.settings;
		this.clock = b.clock;
		this.advertisedAddress = b.advertisedAddress;
		this.observer = b.observer;
		this.fixedReactions = List.copyOf(b.reactions);
		this.lateReactions = b.lateReactions;
		this.runtime = (b.runtime != null) ? b.runtime : new ThreadedRuntime(b.settings.nodeId());
		this.events = new EventDispatch(this.runtime, b.listener);
		this.serverClock = new ServerClock(b.clock);
		this.loop = new NodeLoop(nodeId(), this.settings, this.clock, this.serverClock, this.runtime, this.lifecycle,
				this.groups::values);
		ClockSamples samples = new ClockSamples(this.serverClock, this.settings);
		Campaign campaign = new Campaign(this.settings, b.store, this.loop, samples, b.metrics, () -> this.holder,
				this.lifecycle);
		this.roster = new MemberRoster(nodeId(), this.events);
		this.round = new ElectionRound(this.settings, b.store, this.loop, samples, campaign, this.roster, this.events,
				b.metrics, this.groups::values, () -> this.holder, this.lifecycle, this.incarnation);
		campaign.onDeclined(this.round::declined);
		this.handOver = new HandOver(this.settings, this.clock, this.runtime, this.loop, this.round, this.lifecycle,
				this.groups::values, this.stopped);
		this.settings.groups().forEach(this::join);
	}

	public static Builder builder(MembershipSettings settings, MembershipStore store) {
		return new Builder(settings, store);
	}

	public MembershipSettings settings() {
		return this.settings;
	}

	public String incarnation() {
		return this.incarnation;
	}

	public boolean isRunning() {
		return this.lifecycle.phase() == Phase.RUNNING;
	}

	// ---------------------------------------------------------------- lifecycle

	public void start() {
		synchronized (this.lifecycle) {
			if (this.lifecycle.phase() != Phase.NEW) {
				throw new IllegalStateException("A membership node starts once; create a new one to rejoin");
			}
			List<MembershipEventListener> all = new ArrayList<>(this.fixedReactions);
			all.addAll(this.lateReactions.get());
			this.events.reactions(all);
			String address = this.advertisedAddress.get();
			this.holder = new Holder(nodeId(), this.incarnation, address);
			this.lifecycle.move(Phase.NEW, Phase.RUNNING);
			log.info("Membership node {} (incarnation {}) starting at {} for groups {}", nodeId(), this.incarnation,
					address, groups());
			this.loop.startTicking(this.round::tick);
		}
	}

	/**
	 * Leaves gracefully. First the drain: no new leader-only work starts, work that asked to be interrupted is, and the
	 * node keeps renewing its leases while the rest finishes (at most the settings' drain timeout). Then it ends every
	 * leadership belief, releases the leases and removes its document (bounded by {@code timeout}), so that followers
	 * take over as soon as the work is done, never while it still runs. A second call waits for the first.
	 */
	public void stop(Duration timeout) {
		CompletableFuture<Void> done = stopAsync(timeout);
		try {
			// both timeouts start a little late: a second of slack, so a stop that ends on time is not cut short
			done.get(this.settings.drainTimeout().plus(timeout).plusSeconds(1).toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			log.warn("Membership node {} was interrupted while stopping; it hands over without waiting further",
					nodeId());
			return;
		}
		catch (ExecutionException | TimeoutException ex) {
			log.debug("Membership node {} is still stopping: {}", nodeId(), ex.toString());
			return;
		}
		// let reactions (the release notice) and listeners see the SHUTDOWN revocations
		this.runtime.awaitEvents((timeout.compareTo(Duration.ofSeconds(2)) < 0) ? timeout : Duration.ofSeconds(2));
	}

	/**
	 * The graceful stop of {@link #stop(Duration)} without waiting for it: completes when the node has stopped. For
	 * simulations and callers that must not block.
	 */
	public CompletableFuture<Void> stopAsync(Duration timeout) {
		if (this.lifecycle.move(Phase.NEW, Phase.STOPPED)) {
			this.runtime.shutdown();
			this.stopped.complete(null);
		}
		else if (this.lifecycle.move(Phase.RUNNING, Phase.DRAINING)) { // the loop keeps renewing, competes no more
			// on the watchdog, not on whichever thread ended the drain (a job's, or one ending a term under its lock)
			this.handOver.drain(this.groups.values())
				.whenCompleteAsync((ok, ex) -> this.handOver.leave(timeout), this.handOver::onWatchdog);
		}
		return this.stopped.copy(); // the caller's copy: completing it cannot fake a stop
	}

	@Override
	public void close() {
		stop(this.settings.leaseDuration());
	}

	/**
	 * Stops like a crash: no release, no goodbye, nothing more written. For tests and benchmarks of failover; a real
	 * crash needs no method.
	 */
	public void halt() {
		if (this.lifecycle.halt() == Phase.STOPPED) {
			return;
		}
		this.stopped.complete(null);
		for (GroupElection group : this.groups.values()) {
			group.halt();
		}
		this.runtime.halt();
	}

	// ---------------------------------------------------------------- queries

	@Override
	public String nodeId() {
		return this.settings.nodeId();
	}

	@Override
	public String advertisedAddress() {
		Holder h = this.holder;
		return (h != null) ? h.address() : null;
	}

	@Override
	public boolean isLeader(String group) {
		GroupElection election = this.groups.get(group);
		return election != null && election.isLeader();
	}

	@Override
	public LeadershipTerm.Execution beginLeaderWork(String group, String name, boolean interruptOnEnd) {
		GroupElection election = this.groups.get(group);
		LeadershipTerm term = (election != null) ? election.term() : null;
		return (term != null) ? term.tryBegin(name, interruptOnEnd) : null; // one clock read, no Optional
	}

	@Override
	public Optional<LeadershipTerm> currentTerm(String group) {
		GroupElection election = this.groups.get(group);
		LeadershipTerm term = (election != null) ? election.term() : null;
		return (term != null && term.isValid()) ? Optional.of(term) : Optional.empty();
	}

	@Override
	public Optional<LeaderInfo> leader(String group) {
		GroupElection election = this.groups.get(group);
		if (election == null) {
			return Optional.empty();
		}
		LeaderInfo self = election.self(advertisedAddress());
		return (self != null) ? Optional.of(self) : Optional.ofNullable(election.leader().knownOther());
	}

	@Override
	public List<Member> members() {
		return this.roster.members();
	}

	@Override
	public List<Member> liveMembers() {
		return this.roster.liveMembers();
	}

	@Override
	public Set<String> groups() {
		return Set.copyOf(this.groups.keySet());
	}

	@Override
	public void join(String group) {
		String problem = MembershipSettings.groupNameProblem(group);
		if (problem != null) {
			throw new IllegalArgumentException("Cannot join group '" + group + "': " + problem);
		}
		this.groups.computeIfAbsent(group,
				(name) -> new GroupElection(name, nodeId(), this.clock, this.runtime, this.events, this.observer));
	}

	@Override
	public void resign(String group) {
		GroupElection election = this.groups.get(group);
		if (election != null) {
			this.handOver.resign(election);
		}
	}

	/**
	 * Hints that the lease of {@code group}, held with {@code releasedEpoch}, was just released (another node said so):
	 * try to acquire at once instead of when the lease would have expired. Advisory: the conditional write decides, so a
	 * false hint costs one call; and a hint never changes what this node knows of the leader, so a late one (a newer
	 * leader is known already) is ignored.
	 */
	public void nudge(String group, long releasedEpoch) {
		GroupElection election = this.groups.get(group);
		if (election != null && this.lifecycle.phase() != Phase.NEW) {
			this.loop.submit(this.round.nudge(election, releasedEpoch));
		}
	}

	/**
	 * Advisory news of a leader (another node said it was elected): remembered if newer than what this node knows, so
	 * the change is seen at once rather than at the next read of the leases. Never makes this node leader.
	 */
	public void observeLeader(LeaderInfo leader) {
		GroupElection election = this.groups.get(leader.group());
		if (election != null && !nodeId().equals(leader.nodeId()) && this.lifecycle.phase() != Phase.NEW) {
			this.loop.submit(this.round.observe(election, leader));
		}
	}

	@Override
	public MembershipStatus status() {
		Long last = this.round.lastHeartbeatNanos();
		Duration age = (last != null) ? Duration.ofNanos(this.clock.nanoTime() - last) : null;
		return new MembershipStatus(isRunning(), this.round.ready(), age, this.loop.consecutiveFailures(),
				this.loop.lastError(), this.round.duplicateNodeId());
	}

	@Override
	public Optional<Instant> serverTimeEstimate() {
		return this.serverClock.isSynchronized() ? Optional.of(this.serverClock.estimate()) : Optional.empty();
	}

	public static final class Builder {

		private final MembershipSettings settings;

		private final MembershipStore store;

		private MonotonicClock clock = MonotonicClock.system();

		private Supplier<String> advertisedAddress = () -> null;

		private MembershipEventListener listener = MembershipEventListener.none();

		private final List<MembershipEventListener> reactions = new ArrayList<>();

		private Supplier<? extends List<? extends MembershipEventListener>> lateReactions = List::of;

		private LeadershipObserver observer = LeadershipObserver.none();

		private ElectionMetrics metrics = ElectionMetrics.none();

		private NodeRuntime runtime;

		private Builder(MembershipSettings settings, MembershipStore store) {
			this.settings = Objects.requireNonNull(settings);
			this.store = Objects.requireNonNull(store);
		}

		/** The address is read once, at {@link MembershipNode#start()} (a web server port may be known only then). */
		public Builder advertisedAddress(Supplier<String> address) {
			this.advertisedAddress = address;
			return this;
		}

		public Builder advertisedAddress(String address) {
			return advertisedAddress(() -> address);
		}

		/**
		 * The application's listener: gets every event, in order, on a thread of its own; what it throws is logged
		 * (once per event type) and changes nothing else.
		 */
		public Builder listener(MembershipEventListener listener) {
			this.listener = listener;
			return this;
		}

		/**
		 * Adds a reaction: called with every event, in order, on the node's event thread, before and independently of
		 * the application's listener; each reaction is isolated from the others. For the starter's own reactions
		 * (readiness, leadership notices, meters); must be fast.
		 */
		public Builder reaction(MembershipEventListener reaction) {
			this.reactions.add(Objects.requireNonNull(reaction));
			return this;
		}

		/** Reactions looked up when the node starts, after those added one by one (for dependency-injected ones). */
		public Builder reactions(Supplier<? extends List<? extends MembershipEventListener>> reactions) {
			this.lateReactions = Objects.requireNonNull(reactions);
			return this;
		}

		public Builder observer(LeadershipObserver observer) {
			this.observer = observer;
			return this;
		}

		public Builder metrics(ElectionMetrics metrics) {
			this.metrics = metrics;
			return this;
		}

		/** Timers use {@link System#nanoTime()}; a custom clock must run at the same rate. */
		public Builder clock(MonotonicClock clock) {
			this.clock = clock;
			return this;
		}

		/** Where the node's loop, timers and events run; by default on threads of its own. For simulations. */
		public Builder runtime(NodeRuntime runtime) {
			this.runtime = Objects.requireNonNull(runtime);
			return this;
		}

		public MembershipNode build() {
			return new MembershipNode(this);
		}

	}

}
