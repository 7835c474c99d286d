package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.Membership;
import dev.membership.MembershipStatus;
import dev.membership.engine.Lifecycle.Phase;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.Partitions;
import dev.membership.liveness.Member;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.NoticeReceiver;
import dev.membership.spi.WorkRegistry;

/**
 * One cluster member: heartbeats, the member roster and leader leases, driven from a store, a clock and settings. Plain
 * Java, so tests and benchmarks can run many nodes in one JVM, and a simulator many nodes in virtual time. The entry
 * point of the engine (lifecycle and queries); the rest of this package is the engine's own: {@link Tick} says what a
 * tick does, with {@link Campaign}, {@link Heartbeats}, {@link RosterFollower} and {@link RosterKeeper};
 * {@link GroupElection} is a group's state machine; {@link HandOver} and {@link Farewell} the drain and the goodbye.
 * The {@link NodeRuntime} says where it runs: by default one loop thread (every store call and every change of state),
 * one watchdog (ends a belief at its deadline even when the loop is stuck in a call) and two event threads.
 */
public final class MembershipNode implements Membership, WorkRegistry, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private final MembershipSettings settings;

	private final MonotonicClock clock;

	private final String incarnation = UUID.randomUUID().toString();

	private final Lifecycle lifecycle = new Lifecycle();

	/** Completes when a stop has done its work, so that a second caller of stop() returns no earlier than the first. */
	private final CompletableFuture<Void> stopped = new CompletableFuture<>();

	private final MembershipNodeBuilder built;

	private final Units units;

	private final NodeRuntime runtime;

	private final EventDispatch events;

	private final LetGo letGo;

	private final ServerClock serverClock;

	private final NodeLoop loop;

	private final MemberRoster roster;

	private final Readiness readiness;

	private final Heartbeats heartbeats;

	private final Campaign campaign;

	private final Tick tick;

	private final HandOver handOver;

	private final Assignments assignments;

	private final Runs runs;

	private volatile @Nullable Holder holder;

	MembershipNode(MembershipNodeBuilder b) {
		this.settings = b.settings;
		this.clock = b.clock;
		this.built = b;
		this.runtime = (b.runtime != null) ? b.runtime : new ThreadedRuntime(b.settings.nodeId());
		this.letGo = new LetGo(this.runtime);
		this.events = new EventDispatch(this.runtime, b.listener);
		this.serverClock = new ServerClock(b.clock);
		this.runs = new Runs(nodeId(), this.incarnation, this.clock, this.serverClock, b.runObservers,
				this.settings.renewalInterval());
		this.units = new Units(this.settings, this.clock, this.runtime, this.events, b.observer, this.runs);
		this.loop = new NodeLoop(nodeId(), this.settings, this.clock, this.serverClock, this.runtime, this.lifecycle,
				this.units::all);
		ClockSamples samples = new ClockSamples(this.serverClock, this.settings, b.metrics);
		Self self = new Self(nodeId(), this.incarnation, () -> this.holder, this.units::all,
				this.settings.partitions(), samples);
		this.roster = new MemberRoster(nodeId(), this.events);
		this.readiness = new Readiness(nodeId(), this.events);
		this.heartbeats = new Heartbeats(this.settings, b.store, this.loop, samples, self);
		this.assignments = new Assignments(nodeId(), b.placement);
		Farewell farewell = new Farewell(b.store, this.loop, self, this.heartbeats, this.lifecycle, this.letGo);
		this.campaign = new Campaign(this.settings, b.store, this.loop, samples, b.metrics, self, this.heartbeats,
				farewell, this.lifecycle, this.assignments, this.roster::members);
		PartitionRenewals renewals = new PartitionRenewals(this.settings, b.store, this.loop, samples, b.metrics, self,
				this.campaign, this.heartbeats);
		PartitionReads reads = new PartitionReads(self, this.assignments, renewals);
		RosterFollower follower = new RosterFollower(b.store, this.loop, self, this.heartbeats, this.campaign,
				this.roster, this.readiness, this.assignments, reads);
		RosterKeeper keeper = new RosterKeeper(this.settings, b.store, this.loop, self, this.heartbeats, this.campaign,
				this.roster, this.readiness, this.assignments, reads);
		this.handOver = new HandOver(this.settings, this.runtime, this.loop, farewell, this.lifecycle,
				this.units::all, this.stopped, this.assignments::owner,
				(unit) -> this.assignments.successorOnLeave(unit, this.roster.members()), this.letGo);
		Rebalance rebalance = new Rebalance(this.settings, this.lifecycle, this.units::all, this.assignments,
				this.handOver);
		HungRuns hung = new HungRuns(this.runs, this.units, this.handOver, this.clock);
		this.tick = new Tick(b.store, this.loop, samples, self, this.campaign, this.heartbeats, follower, keeper,
				this.lifecycle, renewals, () -> {
					rebalance.run();
					hung.run();
				});
	}

	public static MembershipNodeBuilder builder(MembershipSettings settings, MembershipStore store) {
		return new MembershipNodeBuilder(settings, store);
	}

	public MembershipSettings settings() {
		return this.settings;
	}

	/** This process's incarnation: new at every start, so that two processes with one node id are told apart. */
	public String incarnation() {
		return this.incarnation;
	}

	public boolean isRunning() {
		return this.lifecycle.phase() == Phase.RUNNING;
	}

	public void start() {
		synchronized (this.lifecycle) {
			if (this.lifecycle.phase() != Phase.NEW) {
				throw new IllegalStateException("A membership node starts once; create a new one to rejoin");
			}
			this.events.reactions(this.built.allReactions());
			String address = this.built.advertisedAddress.get();
			this.holder = new Holder(nodeId(), this.incarnation, address);
			this.lifecycle.move(Phase.NEW, Phase.RUNNING);
			log.info("Membership node {} (incarnation {}) starting at {} for groups {}", nodeId(), this.incarnation,
					address, groups());
			NoticeReceiver notices = new Notices(this.units.byLease(), this.loop, this.campaign, nodeId());
			this.letGo.connect(notices, this.built.noticeChannels, this.built.lateNoticeChannels.get());
			this.loop.startTicking(this.tick::job);
		}
	}

	/**
	 * Leaves gracefully: the drain (no new leader-only work, running work finishes, at most the drain timeout, leases
	 * renewed meanwhile), then every belief ends, the leases are released and the node's document removed, within
	 * {@code timeout}, so that followers take over once the work is done, never while it runs. Returns within the drain
	 * timeout plus {@code timeout} (and a second of slack); a release that has not landed by then is left to the
	 * lease's expiry. A second call waits for the first.
	 */
	public void stop(Duration timeout) {
		long started = System.nanoTime();
		this.handOver.stop(timeout, true); // this thread waits anyway: it carries the notices to the successors
		StopWait.await(this.settings, this.runtime, this.stopped.copy(), timeout, started);
	}

	/**
	 * The graceful stop of {@link #stop(Duration)} without waiting for it: completes when the node has stopped. For
	 * simulations and callers that must not block.
	 */
	public CompletableFuture<Void> stopAsync(Duration timeout) {
		this.handOver.stop(timeout, false);
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
		this.units.all().forEach(GroupElection::halt);
		this.runtime.halt();
	}

	@Override
	public String nodeId() {
		return this.settings.nodeId();
	}

	@Override
	public @Nullable String advertisedAddress() {
		Holder h = this.holder;
		return (h != null) ? h.address() : null;
	}

	@Override
	public boolean isLeader(String group) {
		GroupElection election = this.units.get(group);
		return election != null && election.isLeader();
	}

	@Override
	public Optional<LeadershipTerm> currentTerm(String group) {
		Term term = this.units.term(group);
		return (term != null && term.isValid()) ? Optional.of(term) : Optional.empty();
	}

	@Override
	public List<LeadershipTerm> ownedTerms(String group) {
		return partitionView(group).ownedTerms();
	}

	@Override
	public Optional<LeadershipTerm> partitionTerm(String group, int partition) {
		return partitionView(group).term(partition);
	}

	@Override
	public LeadershipTerm.@Nullable Execution tryBegin(String group, String name, boolean interruptible,
			Duration maxRunTime) {
		Term term = this.units.term(group);
		// the term checks its deadline: one read
		return (term != null) ? term.tryBegin(name, interruptible, maxRunTime.toNanos()) : null;
	}

	@Override
	public LeadershipTerm.@Nullable Execution tryBegin(LeadershipTerm term, String name, boolean interruptible,
			Duration maxRunTime) {
		return Term.of(term).tryBegin(name, interruptible, maxRunTime.toNanos());
	}

	@Override
	public LeadershipTerm.@Nullable Execution tryBeginDetached(LeadershipTerm term, String name, Runnable onEnd,
			Duration maxRunTime) {
		return Term.of(term).tryBeginDetached(name, onEnd, maxRunTime.toNanos());
	}

	@Override
	public <T> T callWithin(LeadershipTerm.Execution execution, Call<T> call) throws Throwable {
		if (!(execution instanceof Work work)) {
			throw new IllegalArgumentException(execution + " is not work the engine registered");
		}
		return work.within(call);
	}

	@Override
	public boolean runIfLeader(String group, Runnable task) {
		return Work.run(tryBegin(group, "runIfLeader(" + group + ")", false), task);
	}

	@Override
	public Optional<LeaderInfo> leader(String group) {
		return this.units.leader(group, advertisedAddress());
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
		return this.units.groups();
	}

	@Override
	public Set<String> partitionedGroups() {
		return this.settings.partitions().keySet();
	}

	@Override
	public Partitions partitions(String group) {
		return partitionView(group);
	}

	private PartitionView partitionView(String group) {
		return this.units.partitions(group, this.assignments, this::advertisedAddress, this.handOver::resign);
	}

	@Override
	public void competeFor(String group) {
		this.units.join(group);
	}

	@Override
	public void resign(String group) {
		this.handOver.resign(this.units.plainGroup(group));
	}

	@Override
	public MembershipStatus status() {
		return this.heartbeats.status(isRunning(), this.readiness.ready(), this.loop, this.clock, this.runs.hungRuns());
	}

	@Override
	public Optional<Instant> serverTimeEstimate() {
		return this.serverClock.isSynchronized() ? Optional.of(this.serverClock.estimate()) : Optional.empty();
	}

}
