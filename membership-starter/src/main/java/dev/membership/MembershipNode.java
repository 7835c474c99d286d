package dev.membership;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.leadership.LeaderChangedEvent;
import dev.membership.leadership.LeaderElectedEvent;
import dev.membership.leadership.LeaderInfo;
import dev.membership.leadership.LeaderRevokedEvent;
import dev.membership.leadership.LeaseReleasedEvent;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.RevocationReason;
import dev.membership.liveness.Member;
import dev.membership.liveness.MemberJoinedEvent;
import dev.membership.liveness.MemberLeftEvent;
import dev.membership.liveness.NodeReadyEvent;
import dev.membership.store.Holder;
import dev.membership.store.LeaderClaim;
import dev.membership.store.LeaseRecord;
import dev.membership.store.MembershipStore;
import dev.membership.store.NodeRecord;
import dev.membership.store.StoreException;
import dev.membership.time.MonotonicClock;
import dev.membership.time.ServerClock;

/**
 * One cluster member: heartbeats, member listing and leader leases, driven from a store, a clock and settings. Plain
 * Java, so tests and benchmarks can run many nodes in one JVM.
 * <p>
 * Threads: one election loop (every store call, serially), one watchdog (ends a leadership belief at its deadline even
 * when the loop is stuck in a call), one event thread for the reactions (readiness, notices, meters) and one for the
 * application's listener, so that neither slows the loop and the application's listener cannot hold up the reactions.
 */
public final class MembershipNode implements Membership, AutoCloseable {

	private static final Logger log = LoggerFactory.getLogger(MembershipNode.class);

	private static final int CLEANUP_EVERY_TICKS = 10;

	private static final long MIN_RETRY_NANOS = 2_000_000;

	private final MembershipSettings settings;

	private final MembershipStore store;

	private final MonotonicClock clock;

	private final ServerClock serverClock;

	private final Supplier<String> advertisedAddress;

	private final MembershipEventListener listener;

	private final LeadershipObserver observer;

	private final ElectionMetrics metrics;

	private final String incarnation = UUID.randomUUID().toString();

	private final Map<String, GroupState> groups = new ConcurrentHashMap<>();

	private final Object lifecycleMonitor = new Object();

	private volatile Lifecycle lifecycle = Lifecycle.NEW;

	/** Completes when a stop has done its work, so that a second caller of stop() returns no earlier than the first. */
	private final CompletableFuture<Void> stopped = new CompletableFuture<>();

	private volatile Holder holder;

	private ScheduledExecutorService loop;

	private ScheduledExecutorService watchdog;

	private ExecutorService events;

	private ExecutorService applicationEvents;

	private final List<MembershipEventListener> fixedReactions;

	private final Supplier<? extends List<? extends MembershipEventListener>> lateReactions;

	private volatile List<MembershipEventListener> reactions = List.of();

	private final Set<Class<?>> failingEventTypes = ConcurrentHashMap.newKeySet();

	private volatile List<Member> members = List.of();

	private volatile boolean ready;

	private volatile long lastHeartbeatNanos;

	private volatile boolean heartbeatSucceeded;

	private volatile int consecutiveFailures;

	private volatile String lastError;

	private volatile boolean duplicateNodeId;

	// confined to the loop thread
	private Map<String, Member> liveMembersByIncarnation = new LinkedHashMap<>();

	private Instant startedAt;

	private boolean storeInitialized;

	private long lastClockSyncNanos;

	private long ticks;

	private ScheduledFuture<?> nextTick;

	private MembershipNode(Builder b) {
		this.settings = b.settings;
		this.store = b.store;
		this.clock = b.clock;
		this.serverClock = new ServerClock(b.clock);
		this.advertisedAddress = b.advertisedAddress;
		this.listener = b.listener;
		this.fixedReactions = List.copyOf(b.reactions);
		this.lateReactions = b.lateReactions;
		this.observer = b.observer;
		this.metrics = b.metrics;
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
		return this.lifecycle == Lifecycle.RUNNING;
	}

	// ---------------------------------------------------------------- lifecycle

	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.lifecycle != Lifecycle.NEW) {
				throw new IllegalStateException("A membership node starts once; create a new one to rejoin");
			}
			List<MembershipEventListener> all = new ArrayList<>(this.fixedReactions);
			all.addAll(this.lateReactions.get());
			this.reactions = List.copyOf(all);
			String address = this.advertisedAddress.get();
			this.holder = new Holder(nodeId(), this.incarnation, address);
			String id = nodeId();
			this.loop = Executors.newSingleThreadScheduledExecutor(daemon("membership-loop-" + id));
			this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon("membership-watchdog-" + id));
			this.events = Executors.newSingleThreadExecutor(daemon("membership-events-" + id));
			this.applicationEvents = Executors.newSingleThreadExecutor(daemon("membership-app-events-" + id));
			this.lifecycle = Lifecycle.RUNNING;
			log.info("Membership node {} (incarnation {}) starting at {} for groups {}", id, this.incarnation, address,
					groups());
			this.loop.execute(this::tick);
		}
	}

	/**
	 * Leaves gracefully. First the drain: no new leader-only work starts, work that asked to be interrupted is, and the
	 * node keeps renewing its leases while the rest finishes (at most the settings' drain timeout). Then it ends every
	 * leadership belief, releases the leases and removes its document (bounded by {@code timeout}), so that followers
	 * take over as soon as the work is done, never while it still runs.
	 */
	public void stop(Duration timeout) {
		boolean first;
		synchronized (this.lifecycleMonitor) {
			if (this.lifecycle == Lifecycle.NEW) {
				this.lifecycle = Lifecycle.STOPPED;
				this.stopped.complete(null);
			}
			first = this.lifecycle == Lifecycle.RUNNING;
			if (first) {
				this.lifecycle = Lifecycle.DRAINING; // the loop keeps renewing, but competes no more
			}
		}
		if (!first) {
			awaitStopped(timeout); // another stop is under way: return when it is done, as it would
			return;
		}
		try {
			stopRunning(timeout);
		}
		finally {
			this.stopped.complete(null);
		}
	}

	private void awaitStopped(Duration timeout) {
		try {
			this.stopped.get(this.settings.drainTimeout().plus(timeout).toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			log.debug("Membership node {} is still stopping: {}", nodeId(), ex.toString());
		}
	}

	private void stopRunning(Duration timeout) {
		drain(this.groups.values());
		synchronized (this.lifecycleMonitor) {
			if (this.lifecycle != Lifecycle.DRAINING) {
				return; // halted meanwhile
			}
			this.lifecycle = Lifecycle.STOPPING; // read by the loop thread: no tick runs after this
		}
		List<LeaseToRelease> released = new ArrayList<>();
		for (GroupState group : this.groups.values()) {
			LeadershipTerm term = group.term;
			if (term != null && revoke(group, term, RevocationReason.SHUTDOWN)) {
				released.add(new LeaseToRelease(group.name, term.epoch()));
			}
		}
		try {
			this.loop.submit(() -> leave(released)).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			log.warn("Membership node {} was interrupted while releasing its leases; followers take over when the "
					+ "leases expire", nodeId());
		}
		catch (ExecutionException | TimeoutException | RejectedExecutionException ex) {
			log.warn("Membership node {} could not release its leases in time ({}); followers take over when the "
					+ "leases expire", nodeId(), ex.toString());
		}
		shutdownExecutors(timeout);
		this.lifecycle = Lifecycle.STOPPED;
		log.info("Membership node {} stopped", nodeId());
	}

	/** Hands every led group over and waits, at most the drain timeout, for its leader-only work to finish. */
	private void drain(Iterable<GroupState> groups) {
		Map<GroupState, CompletableFuture<Void>> drains = new LinkedHashMap<>();
		for (GroupState group : groups) {
			LeadershipTerm.Control control = group.control;
			if (control != null) {
				drains.put(group, control.handOver());
			}
		}
		if (drains.isEmpty()) {
			return;
		}
		try {
			CompletableFuture.allOf(drains.values().toArray(CompletableFuture[]::new))
				.get(this.settings.drainTimeout().toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			drains.forEach((group, drained) -> {
				if (!drained.isDone()) {
					warnDrainTimedOut(group.name, drained, group.term);
				}
			});
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			log.warn("Membership node {} was interrupted while leader-only work finished; handing over now", nodeId());
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

	private void warnDrainTimedOut(String group, CompletableFuture<Void> drained, LeadershipTerm term) {
		if (term != null && !drained.isDone()) {
			log.warn("Node {} hands group '{}' over after waiting {} for leader-only work that is still running: {}. "
					+ "The next leader may start while it runs; fence its writes with the epoch ({}), or raise "
					+ "membership.shutdown.drain-timeout", nodeId(), group, this.settings.drainTimeout(),
					term.runningWork(), term.epoch());
		}
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
		synchronized (this.lifecycleMonitor) {
			if (this.lifecycle == Lifecycle.STOPPED) {
				return;
			}
			this.lifecycle = Lifecycle.STOPPED;
		}
		this.stopped.complete(null);
		for (GroupState group : this.groups.values()) {
			synchronized (group) {
				LeadershipTerm.Control control = group.control;
				if (control != null) {
					LeadershipTerm term = control.term();
					group.term = null;
					group.control = null;
					control.end();
					this.observer.ended(nodeId(), group.name, term.epoch(),
							Math.min(this.clock.nanoTime(), term.deadlineNanos()));
				}
			}
		}
		if (this.loop != null) {
			this.loop.shutdownNow();
			this.watchdog.shutdownNow();
			this.events.shutdownNow();
			this.applicationEvents.shutdownNow();
		}
	}

	private void leave(List<LeaseToRelease> released) {
		cancelScheduled();
		for (LeaseToRelease lease : released) {
			try {
				if (this.store.release(lease.group, this.holder, lease.epoch)) {
					publish(new LeaseReleasedEvent(nodeId(), lease.group, lease.epoch));
				}
			}
			catch (StoreException ex) {
				log.warn("Could not release lease of group {} on shutdown: {}", lease.group, ex.getMessage());
			}
		}
		try {
			this.store.removeNode(nodeId(), this.incarnation);
		}
		catch (StoreException ex) {
			log.warn("Could not remove node document on shutdown: {}", ex.getMessage());
		}
	}

	private void shutdownExecutors(Duration timeout) {
		this.loop.shutdownNow();
		this.watchdog.shutdownNow();
		this.events.shutdown();
		this.applicationEvents.shutdown();
		try {
			// let reactions (the release notice) and listeners see the SHUTDOWN revocations
			long waitNanos = Math.min(timeout.toNanos(), TimeUnit.SECONDS.toNanos(2));
			long until = System.nanoTime() + waitNanos;
			this.events.awaitTermination(waitNanos, TimeUnit.NANOSECONDS);
			this.applicationEvents.awaitTermination(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.events.shutdownNow();
		this.applicationEvents.shutdownNow();
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
		GroupState state = this.groups.get(group);
		if (state == null) {
			return false;
		}
		LeadershipTerm term = state.term;
		return term != null && term.isValid();
	}

	@Override
	public LeadershipTerm.Execution beginLeaderWork(String group, String name, boolean interruptOnEnd) {
		GroupState state = this.groups.get(group);
		LeadershipTerm term = (state != null) ? state.term : null;
		return (term != null) ? term.tryBegin(name, interruptOnEnd) : null; // one clock read, no Optional
	}

	@Override
	public Optional<LeadershipTerm> currentTerm(String group) {
		GroupState state = this.groups.get(group);
		LeadershipTerm term = (state != null) ? state.term : null;
		return (term != null && term.isValid()) ? Optional.of(term) : Optional.empty();
	}

	@Override
	public Optional<LeaderInfo> leader(String group) {
		GroupState state = this.groups.get(group);
		if (state == null) {
			return Optional.empty();
		}
		LeadershipTerm term = state.term;
		if (term != null && term.isValid()) {
			return Optional.of(new LeaderInfo(group, nodeId(), advertisedAddress(), term.epoch(), state.leaseExpiresAt));
		}
		return Optional.ofNullable(state.knownLeader).filter((info) -> !nodeId().equals(info.nodeId()));
	}

	@Override
	public List<Member> members() {
		return this.members;
	}

	@Override
	public List<Member> liveMembers() {
		return this.members.stream().filter(Member::live).toList();
	}

	@Override
	public Set<String> groups() {
		return Set.copyOf(this.groups.keySet());
	}

	@Override
	public void join(String group) {
		if (group == null || group.isBlank()) {
			throw new IllegalArgumentException("A group name must not be blank");
		}
		this.groups.computeIfAbsent(group, GroupState::new);
	}

	@Override
	public void resign(String group) {
		GroupState state = this.groups.get(group);
		if (state == null) {
			return;
		}
		// hold-off first: the loop must not take the lease straight back through the "already mine" clause
		holdOff(state);
		LeadershipTerm.Control control = state.control;
		if (control == null) {
			return;
		}
		LeadershipTerm term = control.term();
		AtomicBoolean handedOver = new AtomicBoolean();
		Runnable handOver = () -> {
			if (handedOver.compareAndSet(false, true)) {
				holdOff(state);
				if (revoke(state, term, RevocationReason.RESIGNED)) {
					submit(() -> release(group, term.epoch()), "release of group " + group);
				}
			}
		};
		CompletableFuture<Void> drained = control.handOver();
		if (drained.isDone()) {
			handOver.run(); // nothing running: ends the belief before resign() returns
			return;
		}
		ScheduledFuture<?> timeout = scheduleOnWatchdog(() -> {
			if (!handedOver.get()) {
				warnDrainTimedOut(group, drained, term);
				handOver.run();
			}
		}, this.settings.drainTimeout());
		drained.thenRun(() -> {
			if (timeout != null) {
				timeout.cancel(false);
			}
			handOver.run();
		});
	}

	private void holdOff(GroupState state) {
		state.holdOffUntilNanos = this.clock.nanoTime() + this.settings.renewalInterval().multipliedBy(2).toNanos();
	}

	private void release(String group, long epoch) {
		if (this.store.release(group, this.holder, epoch)) {
			publish(new LeaseReleasedEvent(nodeId(), group, epoch));
		}
		if (this.lifecycle.ticks()) {
			heartbeat(); // withdraws the claim at once; never after leave() removed the node's document
		}
	}

	/**
	 * Hints that the lease of {@code group}, held with {@code releasedEpoch}, was just released (another node said so):
	 * try to acquire at once instead of when the lease would have expired. Advisory: the conditional write decides, so a
	 * false hint costs one call; and a hint never changes what this node knows of the leader, so a late one (a newer
	 * leader is known already) is ignored.
	 */
	public void nudge(String group, long releasedEpoch) {
		GroupState state = this.groups.get(group);
		if (state == null) {
			return;
		}
		submit(() -> {
			LeaderInfo known = state.knownLeader;
			if (isLeader(group) || (known != null && known.epoch() > releasedEpoch)) {
				return;
			}
			compete(state, true);
		}, "attempt on group " + group);
	}

	/**
	 * Advisory news of a leader (another node said it was elected): remembered if newer than what this node knows, so
	 * the change is seen at once rather than at the next member listing. Never makes this node leader.
	 */
	public void observeLeader(LeaderInfo leader) {
		GroupState state = this.groups.get(leader.group());
		if (state == null || nodeId().equals(leader.nodeId())) {
			return;
		}
		submit(() -> {
			LeaderInfo known = state.knownLeader;
			// a notice brings news only: a newer epoch, or the known leader again; never one this node has forgotten
			boolean news = (known != null) ? leader.epoch() >= known.epoch() : leader.epoch() > state.highestKnownEpoch;
			if (news && !isLeader(leader.group())) {
				// learned now, so any heartbeat of that node stamped after now (upper bound) came after it acquired
				learnLeader(state, leader, this.serverClock.isSynchronized()
						? this.serverClock.upperBoundAt(this.clock.nanoTime()) : null);
			}
		}, "leader news for group " + leader.group());
	}

	@Override
	public MembershipStatus status() {
		Duration age = this.heartbeatSucceeded ? Duration.ofNanos(this.clock.nanoTime() - this.lastHeartbeatNanos)
				: null;
		return new MembershipStatus(isRunning(), this.ready, age, this.consecutiveFailures, this.lastError,
				this.duplicateNodeId);
	}

	@Override
	public Optional<Instant> serverTimeEstimate() {
		return this.serverClock.isSynchronized() ? Optional.of(this.serverClock.estimate()) : Optional.empty();
	}

	// ---------------------------------------------------------------- the loop

	private void tick() {
		if (!this.lifecycle.ticks()) {
			return;
		}
		Duration delay = this.settings.renewalInterval();
		try {
			syncClockIfDue();
			initializeStoreOnce();
			renewHeldLeases();
			heartbeat();
			listMembers();
			competeForGroups();
			if (++this.ticks % CLEANUP_EVERY_TICKS == 0 && leadsAnyGroup()) {
				removeDeadNodes();
			}
			if (this.consecutiveFailures > 0) {
				log.info("Membership node {} reaches the store again (after {} failed attempt(s))", nodeId(),
						this.consecutiveFailures);
			}
			this.consecutiveFailures = 0;
			this.lastError = null;
		}
		catch (RuntimeException ex) {
			delay = onFailure(ex);
		}
		finally {
			scheduleTick(delay);
		}
	}

	private Duration onFailure(RuntimeException ex) {
		int failures = ++this.consecutiveFailures;
		this.lastError = ex.getMessage();
		if (failures == 1) {
			log.warn("Membership node {} cannot reach the store: {}", nodeId(), ex.getMessage());
		}
		else {
			log.debug("Membership node {} store failure #{}: {}", nodeId(), failures, ex.getMessage());
		}
		if (!(ex instanceof StoreException)) {
			log.error("Unexpected failure in the membership loop of {}", nodeId(), ex);
		}
		Duration interval = this.settings.renewalInterval();
		if (leadsAnyGroup()) {
			return interval.dividedBy(2); // a leader keeps trying to renew before its deadline
		}
		long factor = 1L << Math.min(failures - 1, 10);
		Duration backoff = interval.multipliedBy(factor);
		Duration cap = this.settings.leaseDuration();
		return (backoff.compareTo(cap) > 0) ? cap : backoff;
	}

	private void scheduleTick(Duration delay) {
		if (!this.lifecycle.ticks()) {
			return;
		}
		try {
			this.nextTick = this.loop.schedule(this::tick, delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopping
		}
	}

	private void syncClockIfDue() {
		long now = this.clock.nanoTime();
		if (this.serverClock.isSynchronized()
				&& now - this.lastClockSyncNanos < this.settings.clockSyncInterval().toNanos()) {
			return;
		}
		long sent = this.clock.nanoTime();
		Instant serverTime = this.store.serverTime();
		long received = this.clock.nanoTime();
		this.serverClock.offer(sent, received, serverTime);
		this.lastClockSyncNanos = received;
		if (this.startedAt == null) {
			this.startedAt = this.serverClock.estimateAt(received);
		}
	}

	private void initializeStoreOnce() {
		if (this.storeInitialized) {
			return;
		}
		try {
			this.store.initialize();
		}
		catch (RuntimeException ex) {
			// indexes are housekeeping only; safety never depends on them
			log.warn("Could not prepare the membership collections (will go on without): {}", ex.getMessage());
		}
		this.storeInitialized = true;
	}

	private void renewHeldLeases() {
		for (GroupState group : this.groups.values()) {
			LeadershipTerm term = group.term;
			if (term == null || !term.isValid()) {
				continue;
			}
			long sent = this.clock.nanoTime();
			Instant expiresAt = this.serverClock.upperBoundAt(sent).plus(this.settings.leaseDuration());
			boolean renewed;
			try {
				renewed = this.store.renew(group.name, this.holder, term.epoch(), expiresAt);
			}
			catch (RuntimeException ex) {
				this.metrics.renewal(group.name, ElectionMetrics.RenewalOutcome.ERROR);
				throw ex;
			}
			if (renewed) {
				this.metrics.renewal(group.name, ElectionMetrics.RenewalOutcome.RENEWED);
				extend(group, term, deadlineFor(sent), expiresAt);
			}
			else {
				this.metrics.renewal(group.name, ElectionMetrics.RenewalOutcome.LOST);
				revoke(group, term, RevocationReason.LEASE_LOST);
			}
		}
	}

	private void heartbeat() {
		Map<String, LeaderClaim> claims = new HashMap<>();
		for (GroupState group : this.groups.values()) {
			LeadershipTerm term = group.term;
			if (term != null && term.isValid()) {
				claims.put(group.name, new LeaderClaim(term.epoch(), group.leaseExpiresAt));
			}
		}
		long sent = this.clock.nanoTime();
		String previous = this.store.heartbeat(new NodeRecord(nodeId(), this.incarnation, this.holder.address(),
				this.startedAt, null, List.copyOf(new LinkedHashSet<>(this.groups.keySet())), claims));
		if (this.heartbeatSucceeded && previous != null && !previous.equals(this.incarnation)) {
			if (!this.duplicateNodeId) {
				log.error("Node id '{}' is used by another process (incarnation {}) as well as by this one ({}). "
						+ "Only one of them can lead; give every instance its own membership.node-id.", nodeId(),
						previous, this.incarnation);
			}
			this.duplicateNodeId = true;
		}
		this.lastHeartbeatNanos = sent;
		this.heartbeatSucceeded = true;
	}

	private void listMembers() {
		List<NodeRecord> records = this.store.findNodes();
		long at = this.clock.nanoTime();
		Instant now = this.serverClock.estimateAt(at);
		Instant certainlyPassed = this.serverClock.lowerBoundAt(at);
		Duration window = this.settings.livenessWindow();
		List<Member> listed = new ArrayList<>(records.size());
		for (NodeRecord r : records) {
			boolean live = r.updatedAt() != null && Duration.between(r.updatedAt(), now).compareTo(window) <= 0;
			listed.add(new Member(r.nodeId(), r.incarnation(), r.address(), r.startedAt(), r.updatedAt(), r.groups(),
					live));
		}
		listed.sort(Comparator.comparing(Member::live)
			.reversed()
			.thenComparing(Member::startedAt, Comparator.nullsLast(Comparator.naturalOrder()))
			.thenComparing(Member::nodeId));
		this.members = List.copyOf(listed);
		publishMembershipChanges(listed);
		for (GroupState group : this.groups.values()) {
			updateKnownLeader(group, records, certainlyPassed);
		}
		if (!this.ready) {
			this.ready = true;
			publish(new NodeReadyEvent(nodeId()));
		}
	}

	private void publishMembershipChanges(List<Member> listed) {
		Map<String, Member> live = new LinkedHashMap<>();
		for (Member m : listed) {
			if (m.live()) {
				live.put(m.nodeId() + "/" + m.incarnation(), m);
			}
		}
		for (Map.Entry<String, Member> gone : this.liveMembersByIncarnation.entrySet()) {
			if (!live.containsKey(gone.getKey())) {
				Member member = gone.getValue();
				Member left = listed.stream()
					.filter((m) -> m.nodeId().equals(member.nodeId()) && m.incarnation().equals(member.incarnation()))
					.findFirst()
					.orElse(new Member(member.nodeId(), member.incarnation(), member.address(), member.startedAt(),
							member.lastHeartbeat(), member.groups(), false));
				publish(new MemberLeftEvent(nodeId(), left));
			}
		}
		for (Map.Entry<String, Member> joined : live.entrySet()) {
			if (!this.liveMembersByIncarnation.containsKey(joined.getKey())) {
				publish(new MemberJoinedEvent(nodeId(), joined.getValue()));
			}
		}
		this.liveMembersByIncarnation = live;
	}

	/**
	 * Another node's claim with the highest epoch that has not certainly expired. Advisory: the lease document decides.
	 * This node's own claims are skipped: when it does not lead, a claim of its own is stale.
	 */
	private NodeRecord claimant(String group, List<NodeRecord> records, Instant certainlyPassed) {
		NodeRecord best = null;
		for (NodeRecord r : records) {
			if (r.nodeId().equals(nodeId())) {
				continue;
			}
			LeaderClaim claim = r.leading().get(group);
			if (claim != null && claim.expiresAt() != null && claim.expiresAt().isAfter(certainlyPassed)
					&& (best == null || claim.epoch() > best.leading().get(group).epoch())) {
				best = r;
			}
		}
		return best;
	}

	private void updateKnownLeader(GroupState group, List<NodeRecord> records, Instant certainlyPassed) {
		if (isLeader(group.name)) {
			return; // this node knows best
		}
		NodeRecord claimant = claimant(group.name, records, certainlyPassed);
		LeaderInfo known = group.knownLeader;
		if (claimant != null) {
			LeaderClaim claim = claimant.leading().get(group.name);
			if (known == null || claim.epoch() >= known.epoch()) {
				learnLeader(group, new LeaderInfo(group.name, claimant.nodeId(), claimant.address(), claim.epoch(),
						claim.expiresAt()), claimant.updatedAt());
				return;
			}
		}
		if (known == null || nodeId().equals(known.nodeId())) {
			return;
		}
		if (known.leaseExpiresAt().isAfter(certainlyPassed)
				&& records.stream().anyMatch((r) -> hasNotHeartbeatedSince(r, known.nodeId(), group.knownSince))) {
			// learned from the lease or a notice, and its holder has not heartbeated since: no claim to expect yet
			return;
		}
		// a claim that vanished with its node (graceful stop) or was withdrawn (resign) frees the lease at once
		forgetLeader(group);
	}

	/**
	 * A leader heartbeats its claim right after acquiring, so a heartbeat stamped after the acquisition without a claim
	 * means it resigned or lost the lease. Both times are database times; {@code since} is no earlier than the
	 * acquisition (null when unknown: then keep the leader until its lease has certainly expired).
	 */
	private static boolean hasNotHeartbeatedSince(NodeRecord record, String nodeId, Instant since) {
		return record.nodeId().equals(nodeId)
				&& (since == null || record.updatedAt() == null || !record.updatedAt().isAfter(since));
	}

	/**
	 * Takes {@code info} as the group's leader unless a newer epoch is known already: knowledge only moves forward, so
	 * late or reordered news (a notice, a stale claim) can never make a known leader flap.
	 */
	private void learnLeader(GroupState group, LeaderInfo info, Instant since) {
		synchronized (group) {
			if (info.epoch() < group.highestKnownEpoch) {
				return;
			}
			group.highestKnownEpoch = info.epoch();
			LeaderInfo previous = group.knownLeader;
			group.knownLeader = info;
			group.knownSince = since;
			String before = (previous != null) ? previous.nodeId() : null;
			if (!Objects.equals(before, info.nodeId())) {
				// published under the monitor, so every node sees its changes in epoch order
				publish(new LeaderChangedEvent(nodeId(), group.name, before, info.nodeId(), info.epoch()));
			}
		}
	}

	/** The group has no leader as far as this node can tell. */
	private void forgetLeader(GroupState group) {
		synchronized (group) {
			LeaderInfo previous = group.knownLeader;
			if (previous == null) {
				return;
			}
			group.knownLeader = null;
			group.knownSince = null;
			publish(new LeaderChangedEvent(nodeId(), group.name, previous.nodeId(), null, previous.epoch()));
		}
	}

	private void competeForGroups() {
		for (GroupState group : this.groups.values()) {
			compete(group, false);
		}
	}

	/** {@code released}: the known leader's lease was just released, so do not wait for it to expire. */
	private void compete(GroupState group, boolean released) {
		if (this.lifecycle != Lifecycle.RUNNING || isLeader(group.name)) {
			return;
		}
		long now = this.clock.nanoTime();
		if (now - group.holdOffUntilNanos < 0) {
			scheduleAttempt(group, group.holdOffUntilNanos);
			return;
		}
		LeaderInfo known = group.knownLeader;
		if (!released && known != null && !nodeId().equals(known.nodeId())
				&& known.leaseExpiresAt().isAfter(this.serverClock.lowerBoundAt(now))) {
			// fast succession: try exactly when this lease can have expired, not at some later tick
			scheduleAttempt(group, this.serverClock.monotonicWhenPassed(known.leaseExpiresAt()));
			return;
		}
		tryAcquire(group);
	}

	private void scheduleAttempt(GroupState group, long atNanos) {
		if (group.attempt != null) {
			group.attempt.cancel(false);
		}
		long delay = Math.max(0, atNanos - this.clock.nanoTime());
		try {
			group.attempt = this.loop.schedule(() -> {
				try {
					compete(group, false);
				}
				catch (RuntimeException ex) {
					log.debug("Leadership attempt for group {} failed: {}", group.name, ex.getMessage());
				}
			}, delay, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopping
		}
	}

	private void tryAcquire(GroupState group) {
		long sent = this.clock.nanoTime();
		Instant certainlyPassed = this.serverClock.lowerBoundAt(sent);
		Instant expiresAt = this.serverClock.upperBoundAt(sent).plus(this.settings.leaseDuration());
		Optional<LeaseRecord> won;
		try {
			won = this.store.tryAcquire(group.name, this.holder, certainlyPassed, expiresAt);
		}
		catch (RuntimeException ex) {
			this.metrics.acquisition(group.name, ElectionMetrics.AcquisitionOutcome.ERROR);
			throw ex;
		}
		this.metrics.acquisition(group.name,
				won.isPresent() ? ElectionMetrics.AcquisitionOutcome.ACQUIRED : ElectionMetrics.AcquisitionOutcome.CONFLICT);
		if (won.isPresent()) {
			if (becomeLeader(group, won.get(), deadlineFor(sent), expiresAt)) {
				// publish the claim now so followers learn the new expiry without reading the lease
				try {
					heartbeat();
				}
				catch (StoreException ex) {
					log.debug("Heartbeat after election failed: {}", ex.getMessage());
				}
			}
			return;
		}
		Optional<LeaseRecord> lease = this.store.findLease(group.name);
		if (lease.isEmpty()) {
			return;
		}
		LeaseRecord held = lease.get();
		Holder by = held.holder();
		if (by != null && held.expiresAt() != null && held.expiresAt().isAfter(certainlyPassed)) {
			learnLeader(group, new LeaderInfo(group.name, by.nodeId(), by.address(), held.epoch(), held.expiresAt()),
					held.acquiredAt());
		}
		// also when it looks expired already: someone may have just taken it, or we were on the boundary
		scheduleAttempt(group, Math.max(this.serverClock.monotonicWhenPassed(held.expiresAt()),
				this.clock.nanoTime() + MIN_RETRY_NANOS));
	}

	private long deadlineFor(long sentNanos) {
		return sentNanos + this.settings.leaseDuration().toNanos() - this.settings.safetyMargin().toNanos();
	}

	private void removeDeadNodes() {
		Instant cutoff = this.serverClock.lowerBoundAt(this.clock.nanoTime()).minus(this.settings.deadNodeRetention());
		long removed = this.store.removeNodesNotSeenSince(cutoff);
		if (removed > 0) {
			log.info("Removed {} node document(s) not seen since {}", removed, cutoff);
		}
	}

	private boolean leadsAnyGroup() {
		for (GroupState group : this.groups.values()) {
			if (isLeader(group.name)) {
				return true;
			}
		}
		return false;
	}

	private void cancelScheduled() {
		if (this.nextTick != null) {
			this.nextTick.cancel(false);
		}
		for (GroupState group : this.groups.values()) {
			if (group.attempt != null) {
				group.attempt.cancel(false);
			}
		}
	}

	// ---------------------------------------------------------------- leadership transitions

	private boolean becomeLeader(GroupState group, LeaseRecord lease, long deadlineNanos, Instant expiresAt) {
		long epoch = lease.epoch();
		synchronized (group) {
			long now = this.clock.nanoTime();
			if (this.lifecycle != Lifecycle.RUNNING || now - deadlineNanos >= 0) {
				// too late to lead this term: it simply expires in the database
				return false;
			}
			LeadershipTerm.Control control = LeadershipTerm.start(group.name, epoch, deadlineNanos, this.clock);
			group.control = control;
			group.term = control.term();
			group.leaseExpiresAt = expiresAt;
			this.observer.started(nodeId(), group.name, epoch, now);
			armDeadline(group, control.term());
			learnLeader(group, new LeaderInfo(group.name, nodeId(), advertisedAddress(), epoch, expiresAt),
					lease.acquiredAt());
			// under the monitor: a revocation of this term cannot be published before it
			publish(new LeaderElectedEvent(group.name, nodeId(), epoch));
		}
		log.info("Node {} elected leader of group '{}' (epoch {})", nodeId(), group.name, epoch);
		return true;
	}

	/** Moves the live term's deadline after a successful renewal; captured terms see it too. */
	private void extend(GroupState group, LeadershipTerm term, long deadlineNanos, Instant expiresAt) {
		synchronized (group) {
			LeadershipTerm.Control control = group.control;
			if (control == null || control.term() != term || !control.extend(deadlineNanos)) {
				return; // already revoked, or the deadline passed while the renewal was in flight
			}
			group.leaseExpiresAt = expiresAt;
			armDeadline(group, term);
		}
	}

	private void armDeadline(GroupState group, LeadershipTerm term) {
		if (group.deadlineTimer != null) {
			group.deadlineTimer.cancel(false);
		}
		group.deadlineTimer = scheduleOnWatchdog(() -> onDeadline(group, term),
				Duration.ofNanos(Math.max(0, term.deadlineNanos() - this.clock.nanoTime())));
	}

	/** Null when the node is stopping: the stop path ends the beliefs itself. */
	private ScheduledFuture<?> scheduleOnWatchdog(Runnable task, Duration delay) {
		try {
			return this.watchdog.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			return null;
		}
	}

	private void onDeadline(GroupState group, LeadershipTerm term) {
		if (term.isValid()) {
			synchronized (group) {
				if (group.term == term) {
					armDeadline(group, term); // woke early; isLeader() is exact anyway
				}
			}
			return;
		}
		revoke(group, term, RevocationReason.RENEWAL_DEADLINE_PASSED);
	}

	/** Ends {@code term} if it is still current; returns whether this call ended it. */
	private boolean revoke(GroupState group, LeadershipTerm term, RevocationReason reason) {
		synchronized (group) {
			LeadershipTerm.Control control = group.control;
			if (control == null || control.term() != term) {
				return false;
			}
			group.term = null;
			group.control = null;
			if (group.deadlineTimer != null) {
				group.deadlineTimer.cancel(false);
			}
			control.end(); // captured terms turn invalid now; interruptible work is interrupted
			long end = Math.min(this.clock.nanoTime(), term.deadlineNanos());
			this.observer.ended(nodeId(), group.name, term.epoch(), end);
			LeaderInfo known = group.knownLeader;
			if (known != null && nodeId().equals(known.nodeId())) {
				forgetLeader(group);
			}
			// under the monitor: no later election of this group can be published before it
			publish(new LeaderRevokedEvent(group.name, nodeId(), term.epoch(), reason));
		}
		if (reason == RevocationReason.RENEWAL_DEADLINE_PASSED || reason == RevocationReason.LEASE_LOST) {
			log.warn("Node {} no longer leads group '{}' (epoch {}): {}", nodeId(), group.name, term.epoch(), reason);
		}
		else {
			log.info("Node {} no longer leads group '{}' (epoch {}): {}", nodeId(), group.name, term.epoch(), reason);
		}
		return true;
	}

	// ---------------------------------------------------------------- plumbing

	/**
	 * Delivers {@code event} to every reaction in order, each isolated from the others, on the node's event thread;
	 * then to the application's listener on a thread of its own, so that a slow or throwing application listener can
	 * neither break nor delay the reactions.
	 */
	private void publish(MembershipEvent event) {
		ExecutorService reactionsExecutor = this.events;
		if (reactionsExecutor == null) {
			return;
		}
		try {
			reactionsExecutor.execute(() -> {
				for (MembershipEventListener reaction : this.reactions) {
					try {
						reaction.onEvent(event);
					}
					catch (RuntimeException ex) {
						log.error("Membership reaction {} failed on {}", reaction, event, ex);
					}
				}
			});
			this.applicationEvents.execute(() -> {
				try {
					this.listener.onEvent(event);
				}
				catch (RuntimeException ex) {
					if (this.failingEventTypes.add(event.getClass())) {
						log.error("An application listener failed on {}; the membership node goes on (logged once "
								+ "per event type, then at DEBUG)", event, ex);
					}
					else {
						log.debug("An application listener failed on {}", event, ex);
					}
				}
			});
		}
		catch (RejectedExecutionException ex) {
			log.debug("Event {} not delivered: node stopped", event);
		}
	}

	private void submit(Runnable task, String what) {
		ScheduledExecutorService executor = this.loop;
		if (executor == null) {
			log.debug("Membership {} skipped: node not started", what);
			return;
		}
		try {
			executor.execute(() -> {
				try {
					task.run();
				}
				catch (RuntimeException ex) {
					log.warn("Membership {} failed: {}", what, ex.getMessage());
				}
			});
		}
		catch (RejectedExecutionException ex) {
			log.debug("Membership {} skipped: node stopped", what);
		}
	}

	private static ThreadFactory daemon(String name) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, (count.getAndIncrement() == 0) ? name : name + "-" + count.get());
			thread.setDaemon(true);
			return thread;
		};
	}

	private enum Lifecycle {

		NEW, RUNNING, DRAINING, STOPPING, STOPPED;

		/** Whether the loop renews and heartbeats: while running, and while leader-only work drains. */
		boolean ticks() {
			return this == RUNNING || this == DRAINING;
		}

	}

	private record LeaseToRelease(String group, long epoch) {
	}

	/** Per-group state. {@code term}, {@code control} and the known leader are written only under the monitor. */
	private static final class GroupState {

		final String name;

		/** The current term, for readers on any thread; null when this node does not lead. */
		volatile LeadershipTerm term;

		/** The current term's owner side: extended, handed over and ended by this node only. */
		volatile LeadershipTerm.Control control;

		volatile Instant leaseExpiresAt;

		volatile LeaderInfo knownLeader;

		/** Database time no earlier than the known leader's acquisition, or null when unknown. */
		volatile Instant knownSince;

		/** Knowledge of the leader only moves forward in epochs. */
		long highestKnownEpoch;

		volatile long holdOffUntilNanos;

		ScheduledFuture<?> deadlineTimer;

		ScheduledFuture<?> attempt;

		GroupState(String name) {
			this.name = name;
			this.holdOffUntilNanos = System.nanoTime();
		}

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

		public MembershipNode build() {
			return new MembershipNode(this);
		}

	}

}
