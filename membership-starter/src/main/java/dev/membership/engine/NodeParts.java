package dev.membership.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.clock.ClockSamples;
import dev.membership.engine.clock.ServerClock;
import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.OutgoingNotices;
import dev.membership.engine.election.Units;
import dev.membership.engine.events.EventDispatch;
import dev.membership.engine.events.Readiness;
import dev.membership.engine.fires.FireNotes;
import dev.membership.engine.fires.ScheduledFires;
import dev.membership.engine.guard.GuardedCallbacks;
import dev.membership.engine.heartbeat.Heartbeats;
import dev.membership.engine.heartbeat.ThisNode;
import dev.membership.engine.history.RunHistory;
import dev.membership.engine.lease.Campaign;
import dev.membership.engine.lease.LeaseReleases;
import dev.membership.engine.lease.PartitionReads;
import dev.membership.engine.lease.Renewals;
import dev.membership.engine.leaving.GracefulStop;
import dev.membership.engine.leaving.HungRuns;
import dev.membership.engine.leaving.Rebalance;
import dev.membership.engine.leaving.UnitHandOver;
import dev.membership.engine.loop.Lifecycle;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.engine.loop.ThreadedRuntime;
import dev.membership.engine.placement.Assignments;
import dev.membership.engine.placement.RestartGrace;
import dev.membership.engine.roster.MemberRoster;
import dev.membership.engine.roster.RosterFollower;
import dev.membership.engine.roster.RosterKeeper;
import dev.membership.engine.term.Runs;
import dev.membership.engine.term.Unit;
import dev.membership.liveness.Member;
import dev.membership.spi.ElectionMetrics;
import dev.membership.spi.Holder;
import dev.membership.spi.LeadershipObserver;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.RunObserver;

/**
 * The parts of one node, wired: what {@link MembershipNode} is made of. Built once from
 * its builder; the node drives their lifecycle and answers the queries from them.
 */
final class NodeParts {

	final MembershipSettings settings;

	final MonotonicClock clock;

	final String incarnation = UUID.randomUUID().toString();

	final Lifecycle lifecycle = new Lifecycle();

	/**
	 * Completes when a stop has done its work, so that a second caller of stop() returns
	 * no earlier than the first.
	 */
	final CompletableFuture<Void> stopped = new CompletableFuture<>();

	final MembershipNodeBuilder built;

	final Units units;

	final NodeRuntime runtime;

	final EventDispatch events;

	final OutgoingNotices letGo;

	final ServerClock serverClock;

	final NodeLoop loop;

	final MemberRoster roster;

	final Readiness readiness;

	final Heartbeats heartbeats;

	final Campaign campaign;

	/** The renewal of what this node holds; a strict fire's of its unit alone. */
	final Renewals renewals;

	/**
	 * The scheduled jobs, fired once each: on a plain group's leader, on each partition's
	 * owner.
	 */
	final ScheduledFires fires;

	final Tick tick;

	/** A unit's hand-over while the node stays. */
	final UnitHandOver handOver;

	/** The node's graceful stop. */
	final GracefulStop leaving;

	final Assignments assignments;

	final Runs runs;

	/** This node's part of the run history (operators' actions are written there too). */
	final RunHistory history;

	final ThisNode self;

	/**
	 * Reads a roster this node was told of, then hands over what it moved away and tries
	 * for what it moved here.
	 */
	final LongFunction<LoopJob> rosterRead;

	volatile @Nullable Holder holder;

	NodeParts(MembershipNodeBuilder b) {
		String nodeId = b.settings.nodeId();
		this.settings = b.settings;
		this.clock = b.clock;
		this.built = b;
		this.runtime = (b.runtime != null) ? b.runtime : new ThreadedRuntime(nodeId);
		this.letGo = new OutgoingNotices(this.runtime);
		this.events = new EventDispatch(this.runtime, b.listener);
		this.serverClock = new ServerClock(b.clock);
		// code the node is given: what it throws never stops a reaction of the node's own
		// hears the acquisitions' outcomes as the meters do
		this.readiness = new Readiness(nodeId, this.events, b.clock, this.settings.leaseDuration(),
				this.settings.renewalInterval());
		List<ElectionMetrics> heard = new ArrayList<>(b.metrics);
		heard.add(this.readiness);
		ElectionMetrics metrics = GuardedCallbacks.metrics(heard);
		LeadershipObserver observer = GuardedCallbacks.observer(List.copyOf(b.observers));
		RunHistory history = this.history = new RunHistory(b.runHistory, this.runtime.history(), this.serverClock,
				this.incarnation, b.runHistoryBuffer, b.runHistoryErrorMessages, metrics);
		List<RunObserver> observers = new ArrayList<>(b.runObservers);
		if (history.keeps()) {
			observers.add(history);
		}
		this.runs = new Runs(nodeId, this.incarnation, this.clock, this.serverClock, observers,
				this.settings.renewalInterval());
		this.units = new Units(this.settings, this.clock, this.runtime, this.events, observer, this.runs);
		this.loop = new NodeLoop(nodeId, this.settings, this.clock, this.serverClock, this.runtime, this.lifecycle,
				() -> this.units.all().stream().anyMatch(GroupElection::isLeader),
				() -> this.units.all().forEach(GroupElection::cancelAttempt));
		ClockSamples samples = new ClockSamples(this.serverClock, this.settings, metrics);
		this.self = new ThisNode(nodeId, this.incarnation, () -> this.holder, this.units::all,
				this.settings.partitions(), samples, this.lifecycle::isDrained);
		ThisNode self = this.self;
		this.roster = new MemberRoster(nodeId, this.events);
		this.heartbeats = new Heartbeats(this.settings, b.store, this.loop, samples, self);
		this.assignments = new Assignments(nodeId, GuardedCallbacks.placement(b.placement));
		// a strict fire's renewal: made below, with the marks the fires keep
		this.fires = new ScheduledFires(this.loop, this.units, new FireNotes(nodeId, history, metrics),
				this::renewAlone);
		LeaseReleases farewell = new LeaseReleases(b.store, this.loop, self, this.heartbeats, this.lifecycle,
				this.letGo, history, !this.settings.restartGrace().isZero(), this.fires.marks());
		// the members as a node deciding whether to try for a unit sees them: one away
		// for less than the restart grace keeps its place (successors are chosen among
		// the live ones)
		RestartGrace grace = new RestartGrace(this.settings.restartGrace());
		Supplier<List<Member>> placing = () -> {
			java.time.Instant now = this.serverClock.estimateIfSynchronized();
			return (now != null) ? grace.placing(this.roster.members(), now) : this.roster.members();
		};
		this.campaign = new Campaign(this.settings, b.store, this.loop, samples, metrics, self, this.heartbeats,
				farewell, this.lifecycle, this.assignments, placing, this.fires.marks());
		Renewals renewals = this.renewals = new Renewals(this.settings, b.store, this.loop, samples, metrics, self,
				this.heartbeats, this.fires.marks());
		PartitionReads reads = new PartitionReads(self, this.assignments, renewals);
		RosterFollower follower = new RosterFollower(b.store, this.loop, self, this.heartbeats, this.campaign,
				this.roster, this.readiness, this.assignments, reads);
		RosterKeeper keeper = new RosterKeeper(this.settings, b.store, this.loop, self, this.heartbeats, this.campaign,
				this.roster, this.readiness, this.assignments, reads, this.letGo);
		Function<Unit, @Nullable String> successorOnLeave = (unit) -> this.assignments.successorOnLeave(unit,
				this.roster.members());
		this.handOver = new UnitHandOver(this.settings, this.runtime, this.loop, farewell, this.units::all,
				this.assignments::owner, successorOnLeave);
		this.leaving = new GracefulStop(this.settings, this.runtime, this.loop, farewell, this.lifecycle,
				this.units::all, this.stopped, this.assignments::owner, successorOnLeave, this.letGo);
		Rebalance rebalance = new Rebalance(this.settings, this.lifecycle, this.units::all, this.assignments,
				this.handOver);
		HungRuns hung = new HungRuns(this.runs, this.units, this.handOver, this.clock);
		this.tick = new Tick(b.store, this.loop, samples, self, this.campaign, this.heartbeats, follower, keeper,
				this.lifecycle, renewals, () -> {
					rebalance.run();
					hung.run();
					if (this.lifecycle.isDrained()) {
						this.handOver.drainOut(); // a term that began as the drain did
					}
				}, history);
		this.rosterRead = (version) -> follower.noticed(version, (job) -> {
			rebalance.run();
			for (GroupElection unit : this.units.all()) {
				job.then((j) -> this.campaign.compete(j, unit, false));
			}
			job.next();
		});
	}

	/** A strict fire's renewal of its unit's lease alone. */
	private void renewAlone(LoopJob job, GroupElection unit) {
		this.renewals.renewAlone(job, unit);
	}

}
