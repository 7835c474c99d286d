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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
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
 * when the loop is stuck in a call), one event thread (listeners never slow the loop).
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

	private volatile Holder holder;

	private ScheduledExecutorService loop;

	private ScheduledExecutorService watchdog;

	private ExecutorService events;

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
			String address = this.advertisedAddress.get();
			this.holder = new Holder(nodeId(), this.incarnation, address);
			String id = nodeId();
			this.loop = Executors.newSingleThreadScheduledExecutor(daemon("membership-loop-" + id));
			this.watchdog = Executors.newSingleThreadScheduledExecutor(daemon("membership-watchdog-" + id));
			this.events = Executors.newSingleThreadExecutor(daemon("membership-events-" + id));
			this.lifecycle = Lifecycle.RUNNING;
			log.info("Membership node {} (incarnation {}) starting at {} for groups {}", id, this.incarnation, address,
					groups());
			this.loop.execute(this::tick);
		}
	}

	/**
	 * Leaves gracefully: ends every leadership belief at once, then (bounded by {@code timeout}) releases the leases
	 * and removes this node's document so that followers take over at their next attempt.
	 */
	public void stop(Duration timeout) {
		synchronized (this.lifecycleMonitor) {
			if (this.lifecycle != Lifecycle.RUNNING) {
				this.lifecycle = Lifecycle.STOPPED;
				return;
			}
			this.lifecycle = Lifecycle.STOPPING;
		}
		List<LeaseToRelease> released = new ArrayList<>();
		for (GroupState group : this.groups.values()) {
			LeadershipTerm term = group.term;
			if (term != null && revoke(group, term, RevocationReason.SHUTDOWN)) {
				released.add(new LeaseToRelease(group.name, term.epoch()));
			}
		}
		Future<?> farewell = this.loop.submit(() -> leave(released));
		try {
			farewell.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (Exception ex) {
			log.warn("Membership node {} could not release its leases in time ({}); followers take over when the "
					+ "leases expire", nodeId(), ex.toString());
		}
		shutdownExecutors(timeout);
		this.lifecycle = Lifecycle.STOPPED;
		log.info("Membership node {} stopped", nodeId());
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
		for (GroupState group : this.groups.values()) {
			synchronized (group) {
				LeadershipTerm term = group.term;
				if (term != null) {
					group.term = null;
					this.observer.ended(nodeId(), group.name, term.epoch(),
							Math.min(this.clock.nanoTime(), term.deadlineNanos()));
				}
			}
		}
		if (this.loop != null) {
			this.loop.shutdownNow();
			this.watchdog.shutdownNow();
			this.events.shutdownNow();
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
		try {
			// let listeners see the SHUTDOWN revocations
			this.events.awaitTermination(Math.min(timeout.toMillis(), 2000), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.events.shutdownNow();
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
		state.holdOffUntilNanos = this.clock.nanoTime() + this.settings.renewalInterval().multipliedBy(2).toNanos();
		LeadershipTerm term = state.term;
		if (term == null || !revoke(state, term, RevocationReason.RESIGNED)) {
			return;
		}
		submit(() -> {
			if (this.store.release(group, this.holder, term.epoch())) {
				publish(new LeaseReleasedEvent(nodeId(), group, term.epoch()));
			}
			heartbeat();
		}, "release of group " + group);
	}

	/**
	 * Hints that the lease of {@code group} may be free right now (another node said it released it): try to acquire
	 * at once instead of at the next tick. Advisory: the conditional write decides, so a false hint costs one call.
	 */
	public void nudge(String group) {
		GroupState state = this.groups.get(group);
		if (state == null) {
			return;
		}
		submit(() -> {
			state.knownFromLease = false;
			setKnownLeader(state, null);
			compete(state);
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
			if (known == null || leader.epoch() > known.epoch()) {
				state.knownFromLease = false;
				setKnownLeader(state, leader);
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
		if (this.lifecycle != Lifecycle.RUNNING) {
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
		if (this.lifecycle != Lifecycle.RUNNING) {
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
				extend(group, term, sent, expiresAt);
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
			updateKnownLeader(group, claimedLeader(group.name, records, certainlyPassed), records, certainlyPassed);
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

	/** The claim with the highest epoch that has not certainly expired. Advisory: the lease document decides. */
	private LeaderInfo claimedLeader(String group, List<NodeRecord> records, Instant certainlyPassed) {
		LeaderInfo best = null;
		for (NodeRecord r : records) {
			LeaderClaim claim = r.leading().get(group);
			if (claim != null && claim.expiresAt() != null && claim.expiresAt().isAfter(certainlyPassed)
					&& (best == null || claim.epoch() > best.epoch())) {
				best = new LeaderInfo(group, r.nodeId(), r.address(), claim.epoch(), claim.expiresAt());
			}
		}
		return best;
	}

	private void updateKnownLeader(GroupState group, LeaderInfo seen, List<NodeRecord> records,
			Instant certainlyPassed) {
		LeaderInfo known = group.knownLeader;
		if (seen == null && group.knownFromLease && known != null && !nodeId().equals(known.nodeId())
				&& known.leaseExpiresAt().isAfter(certainlyPassed)
				&& records.stream().anyMatch((r) -> hasNotHeartbeatedSince(r, known.nodeId(), group.knownAcquiredAt))) {
			// read from the lease itself, and its holder has not heartbeated since it acquired: no claim yet
			return;
		}
		// a claim that vanished with its node (graceful stop) or was withdrawn (resign) frees the lease at once
		group.knownFromLease = false;
		setKnownLeader(group, seen);
	}

	/**
	 * A new leader heartbeats its claim right after acquiring, so a later heartbeat without a claim means it resigned
	 * or lost the lease. Both times are database times.
	 */
	private static boolean hasNotHeartbeatedSince(NodeRecord record, String nodeId, Instant acquiredAt) {
		return record.nodeId().equals(nodeId)
				&& (acquiredAt == null || record.updatedAt() == null || !record.updatedAt().isAfter(acquiredAt));
	}

	private void setKnownLeader(GroupState group, LeaderInfo info) {
		LeaderInfo previous = group.knownLeader;
		group.knownLeader = info;
		String before = (previous != null) ? previous.nodeId() : null;
		String after = (info != null) ? info.nodeId() : null;
		if (!Objects.equals(before, after)) {
			long epoch = (info != null) ? info.epoch() : (previous != null ? previous.epoch() : 0);
			publish(new LeaderChangedEvent(nodeId(), group.name, before, after, epoch));
		}
	}

	private void competeForGroups() {
		for (GroupState group : this.groups.values()) {
			compete(group);
		}
	}

	private void compete(GroupState group) {
		if (this.lifecycle != Lifecycle.RUNNING || isLeader(group.name)) {
			return;
		}
		long now = this.clock.nanoTime();
		if (now - group.holdOffUntilNanos < 0) {
			scheduleAttempt(group, group.holdOffUntilNanos);
			return;
		}
		LeaderInfo known = group.knownLeader;
		if (known != null && !nodeId().equals(known.nodeId())
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
					compete(group);
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
			if (becomeLeader(group, won.get().epoch(), deadlineFor(sent), expiresAt)) {
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
		group.knownFromLease = true;
		group.knownAcquiredAt = held.acquiredAt();
		setKnownLeader(group, new LeaderInfo(group.name, (by != null) ? by.nodeId() : null,
				(by != null) ? by.address() : null, held.epoch(), held.expiresAt()));
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
			LeadershipTerm term = group.term;
			if (term != null && term.isValid()) {
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

	private boolean becomeLeader(GroupState group, long epoch, long deadlineNanos, Instant expiresAt) {
		synchronized (group) {
			long now = this.clock.nanoTime();
			if (this.lifecycle != Lifecycle.RUNNING || now - deadlineNanos >= 0) {
				// too late to lead this term: it simply expires in the database
				return false;
			}
			LeadershipTerm term = new LeadershipTerm(group.name, epoch, deadlineNanos, this.clock);
			group.term = term;
			group.leaseExpiresAt = expiresAt;
			this.observer.started(nodeId(), group.name, epoch, now);
			armDeadline(group, term);
			setKnownLeader(group, new LeaderInfo(group.name, nodeId(), advertisedAddress(), epoch, expiresAt));
		}
		log.info("Node {} elected leader of group '{}' (epoch {})", nodeId(), group.name, epoch);
		publish(new LeaderElectedEvent(group.name, nodeId(), epoch));
		return true;
	}

	private void extend(GroupState group, LeadershipTerm term, long sentNanos, Instant expiresAt) {
		synchronized (group) {
			if (group.term != term || !term.isValid()) {
				return; // already revoked, or the deadline passed while the renewal was in flight
			}
			LeadershipTerm extended = new LeadershipTerm(group.name, term.epoch(), deadlineFor(sentNanos), this.clock);
			group.term = extended;
			group.leaseExpiresAt = expiresAt;
			armDeadline(group, extended);
		}
	}

	private void armDeadline(GroupState group, LeadershipTerm term) {
		if (group.deadlineTimer != null) {
			group.deadlineTimer.cancel(false);
		}
		long delay = term.deadlineNanos() - this.clock.nanoTime();
		try {
			group.deadlineTimer = this.watchdog.schedule(() -> onDeadline(group, term), Math.max(0, delay),
					TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopping: the stop path ends the belief
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
			if (group.term != term) {
				return false;
			}
			group.term = null;
			if (group.deadlineTimer != null) {
				group.deadlineTimer.cancel(false);
			}
			long end = Math.min(this.clock.nanoTime(), term.deadlineNanos());
			this.observer.ended(nodeId(), group.name, term.epoch(), end);
			LeaderInfo known = group.knownLeader;
			if (known != null && nodeId().equals(known.nodeId())) {
				setKnownLeader(group, null);
			}
		}
		if (reason == RevocationReason.RENEWAL_DEADLINE_PASSED || reason == RevocationReason.LEASE_LOST) {
			log.warn("Node {} no longer leads group '{}' (epoch {}): {}", nodeId(), group.name, term.epoch(), reason);
		}
		else {
			log.info("Node {} no longer leads group '{}' (epoch {}): {}", nodeId(), group.name, term.epoch(), reason);
		}
		publish(new LeaderRevokedEvent(group.name, nodeId(), term.epoch(), reason));
		return true;
	}

	// ---------------------------------------------------------------- plumbing

	private void publish(MembershipEvent event) {
		ExecutorService executor = this.events;
		if (executor == null) {
			return;
		}
		try {
			executor.execute(() -> {
				try {
					this.listener.onEvent(event);
				}
				catch (RuntimeException ex) {
					log.error("Membership event listener failed on {}", event, ex);
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

		NEW, RUNNING, STOPPING, STOPPED

	}

	private record LeaseToRelease(String group, long epoch) {
	}

	/** Per-group state. {@code term} is written only under the monitor, read anywhere. */
	private static final class GroupState {

		final String name;

		volatile LeadershipTerm term;

		volatile Instant leaseExpiresAt;

		volatile LeaderInfo knownLeader;

		volatile boolean knownFromLease;

		volatile Instant knownAcquiredAt;

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

		public Builder listener(MembershipEventListener listener) {
			this.listener = listener;
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
