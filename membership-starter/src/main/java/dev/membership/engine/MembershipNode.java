package dev.membership.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.Membership;
import dev.membership.MembershipStatus;
import dev.membership.engine.election.GroupElection;
import dev.membership.engine.election.PartitionView;
import dev.membership.engine.term.Term;
import dev.membership.engine.term.TermExecution;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.Partitions;
import dev.membership.leadership.ScheduledJobInfo;
import dev.membership.liveness.Member;
import dev.membership.operations.ClusterOperations;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.ScheduledJob;
import dev.membership.spi.WorkRegistry;

/**
 * One cluster member: heartbeats, the member roster and leader leases, driven from a
 * store, a clock and settings. Plain Java, so tests and benchmarks can run many nodes in
 * one JVM, and a simulator many nodes in virtual time. The entry point of the engine
 * (queries here; the lifecycle is {@link NodeStartStop}'s, the parts {@link NodeParts}');
 * the rest of this package is the engine's own: {@link Tick} says what a tick does, with
 * {@code Campaign}, {@code Heartbeats}, {@code RosterFollower} and {@code RosterKeeper};
 * {@link GroupElection} is a group's state machine; {@code UnitHandOver} a unit's drain
 * and release, {@code GracefulStop} and {@code LeaseReleases} the node's stop and
 * goodbye. The {@link NodeRuntime} says where it runs: by default one loop thread (every
 * store call and every change of state), one watchdog (ends a belief at its deadline even
 * when the loop is stuck in a call) and two event threads.
 */
public final class MembershipNode implements Membership, WorkRegistry, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	/** Everything the node is made of. */
	private final NodeParts parts;

	/** Its start and its stops. */
	private final NodeStartStop lifecycle;

	/** What operators ask of it, checked. */
	private final Operators operators;

	MembershipNode(MembershipNodeBuilder b) {
		this.parts = new NodeParts(b);
		this.lifecycle = new NodeStartStop(this.parts);
		this.operators = new Operators(this.parts, this::liveMembers);
	}

	public static MembershipNodeBuilder builder(MembershipSettings settings, MembershipStore store) {
		return new MembershipNodeBuilder(settings, store);
	}

	public MembershipSettings settings() {
		return this.parts.settings;
	}

	/**
	 * This process's incarnation: new at every start, so that two processes with one node
	 * id are told apart.
	 */
	public String incarnation() {
		return this.parts.incarnation;
	}

	public boolean isRunning() {
		return this.lifecycle.isRunning();
	}

	/** Joins the cluster: registers, heartbeats and competes for its groups. Once. */
	public void start() {
		this.lifecycle.start();
	}

	/**
	 * Leaves gracefully: the drain (no new leader-only work, running work finishes, at
	 * most the drain timeout, leases renewed meanwhile), then every belief ends, the
	 * leases are released and the node's document removed, within {@code timeout}, so
	 * that followers take over once the work is done, never while it runs. Returns within
	 * the drain timeout plus {@code timeout} (and a second of slack); a release that has
	 * not landed by then is left to the lease's expiry. A second call waits for the
	 * first.
	 */
	public void stop(Duration timeout) {
		this.lifecycle.stop(timeout);
	}

	/**
	 * The graceful stop of {@link #stop(Duration)} without waiting for it: completes when
	 * the node has stopped. For simulations and callers that must not block.
	 */
	public CompletableFuture<Void> stopAsync(Duration timeout) {
		return this.lifecycle.stopAsync(timeout);
	}

	@Override
	public void close() {
		stop(this.parts.settings.leaseDuration());
	}

	/**
	 * Stops like a crash: no release, no goodbye, nothing more written. For tests and
	 * benchmarks of failover; a real crash needs no method.
	 */
	public void halt() {
		this.lifecycle.halt();
	}

	@Override
	public String nodeId() {
		return this.parts.settings.nodeId();
	}

	@Override
	public @Nullable String advertisedAddress() {
		Holder h = this.parts.holder;
		return (h != null) ? h.address() : null;
	}

	@Override
	public boolean isLeader(String group) {
		GroupElection election = this.parts.units.get(group);
		return election != null && election.isLeader();
	}

	@Override
	public Optional<LeadershipTerm> currentTerm(String group) {
		Term term = this.parts.units.term(group);
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
		Term term = this.parts.units.term(group);
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
	public List<ScheduledJobInfo> scheduledJobs() {
		return this.parts.fires.jobs();
	}

	@Override
	public AutoCloseable schedule(ScheduledJob job) {
		return this.parts.fires.schedule(job);
	}

	@Override
	public <T> T callWithin(LeadershipTerm.Execution execution, Call<T> call) throws Throwable {
		if (!(execution instanceof TermExecution work)) {
			throw new IllegalArgumentException(execution + " is not work the engine registered");
		}
		return work.within(call);
	}

	@Override
	public boolean runIfLeader(String group, Runnable task) {
		return TermExecution.run(tryBegin(group, "runIfLeader(" + group + ")", false), task);
	}

	@Override
	public Optional<LeaderInfo> leader(String group) {
		return this.parts.units.leader(group, advertisedAddress());
	}

	@Override
	public List<Member> members() {
		return this.parts.roster.members();
	}

	@Override
	public List<Member> liveMembers() {
		return this.parts.roster.liveMembers();
	}

	@Override
	public Optional<Instant> livenessCheckedAt() {
		return Optional.ofNullable(this.parts.roster.checkedAt());
	}

	@Override
	public Set<String> groups() {
		return this.parts.units.groups();
	}

	@Override
	public Set<String> partitionedGroups() {
		return this.parts.settings.partitions().keySet();
	}

	@Override
	public Partitions partitions(String group) {
		return partitionView(group);
	}

	private PartitionView partitionView(String group) {
		return this.parts.units.partitions(group, this.parts.assignments, this::advertisedAddress);
	}

	@Override
	public void competeFor(String group) {
		this.parts.units.join(group);
	}

	/**
	 * What an operator tells the cluster to do through this node, each recorded with who
	 * asked: the {@link ClusterOperations} bean of a Spring application.
	 */
	public ClusterOperations operations() {
		return this.operators;
	}

	/**
	 * The application's readiness changed ({@code membership.follow-readiness}): while it
	 * refuses traffic the node is drained, recorded as the readiness' drain
	 * ({@code readiness#drain}), apart from any operator's.
	 */
	public void followReadiness(boolean acceptingTraffic) {
		this.operators.followReadiness(acceptingTraffic);
	}

	@Override
	public MembershipStatus status() {
		return this.parts.heartbeats.status(isRunning(), this.parts.readiness.ready(), this.parts.loop,
				this.parts.clock, this.parts.runs.hungRuns(), this.parts.lifecycle.isDrained());
	}

	@Override
	public Optional<Instant> serverTimeEstimate() {
		return Optional.ofNullable(this.parts.serverClock.estimateIfSynchronized());
	}

}
