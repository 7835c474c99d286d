package dev.membership.testsupport;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.membership.liveness.Member;
import dev.membership.spi.FireMark;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.spi.StoreException;

/**
 * Wraps a real store and injects faults into one node's view of it: down (every call
 * fails), hung (calls block until healed, then fail), or slow (each request and each
 * reply is held back; the call still takes effect, late).
 */
public final class FaultInjectingStore implements MembershipStore {

	private final java.util.concurrent.atomic.AtomicInteger releases = new java.util.concurrent.atomic.AtomicInteger();

	private final java.util.concurrent.atomic.AtomicInteger releaseAlls = new java.util.concurrent.atomic.AtomicInteger();

	public enum Mode {

		NORMAL, DOWN, HANG, SLOW

	}

	private static final long MAX_HANG_MILLIS = 30_000;

	private final MembershipStore delegate;

	private final Object monitor = new Object();

	private volatile Mode mode = Mode.NORMAL;

	private volatile long delayMillis;

	private final AtomicLong operations = new AtomicLong();

	private volatile boolean refusingAcquisitions;

	private final AtomicLong rosterOnlyReads = new AtomicLong();

	public FaultInjectingStore(MembershipStore delegate) {
		this.delegate = delegate;
	}

	public void down() {
		set(Mode.DOWN, 0);
	}

	public void hang() {
		set(Mode.HANG, 0);
	}

	public void slow(long millis) {
		set(Mode.SLOW, millis);
	}

	/**
	 * Every acquisition and take-over fails, every other call goes through: as a pooler
	 * in statement mode, or a role that may not write the leases, would.
	 */
	public void refuseAcquisitions(boolean refusing) {
		this.refusingAcquisitions = refusing;
	}

	public void heal() {
		set(Mode.NORMAL, 0);
	}

	public Mode mode() {
		return this.mode;
	}

	/**
	 * Multi-lease writes still to fail, as a primary's step-down fails them: {renewAll,
	 * releaseAll}.
	 */
	private final java.util.concurrent.atomic.AtomicInteger failingMultiLeaseWrites = new java.util.concurrent.atomic.AtomicInteger();

	private volatile boolean failRetryable;

	private volatile boolean failAfterApplying;

	/** When each renewAll was called (System.nanoTime()). */
	private final java.util.List<Long> renewAllCalls = new java.util.concurrent.CopyOnWriteArrayList<>();

	/**
	 * The next {@code times} renewAll or releaseAll calls fail, with a retryable
	 * {@link StoreException} or not, after applying or before: as a primary's step-down
	 * fails a multi-document write, which drivers do not retry.
	 */
	public void failMultiLeaseWrites(int times, boolean retryable, boolean afterApplying) {
		this.failRetryable = retryable;
		this.failAfterApplying = afterApplying;
		this.failingMultiLeaseWrites.set(times);
	}

	private final java.util.concurrent.atomic.AtomicInteger failingFireRecords = new java.util.concurrent.atomic.AtomicInteger();

	/**
	 * The next {@code times} renewals that record a fire begun and not ended (a
	 * {@code STRICT} fire's record before its run) fail without applying, as a store that
	 * did not answer within the operation timeout.
	 */
	public void failFireRecords(int times) {
		this.failingFireRecords.set(times);
	}

	/** When each renewAll was called so far (System.nanoTime()). */
	public java.util.List<Long> renewAllCalls() {
		return java.util.List.copyOf(this.renewAllCalls);
	}

	private <T> T multiLeaseWrite(Supplier<T> action) {
		return call(() -> {
			if (this.failingMultiLeaseWrites.getAndUpdate((n) -> Math.max(0, n - 1)) <= 0) {
				return action.get();
			}
			if (this.failAfterApplying) {
				action.get();
			}
			throw new StoreException("injected: the primary stepped down", null, this.failRetryable);
		});
	}

	public long operations() {
		return this.operations.get();
	}

	private void set(Mode newMode, long delay) {
		synchronized (this.monitor) {
			this.delayMillis = delay;
			this.mode = newMode;
			this.monitor.notifyAll();
		}
	}

	private void refusedAcquisition() {
		if (this.refusingAcquisitions) {
			this.operations.incrementAndGet();
			throw new StoreException("injected: transaction blocks not allowed in statement pooling mode", null);
		}
	}

	private <T> T call(Supplier<T> action) {
		this.operations.incrementAndGet();
		Mode current = this.mode;
		if (current == Mode.DOWN) {
			throw new StoreException("injected: store down", null);
		}
		if (current == Mode.HANG) {
			awaitHealed();
			throw new StoreException("injected: call hung", null);
		}
		if (current == Mode.SLOW) {
			long delay = this.delayMillis;
			pause(delay);
			T result = action.get();
			pause(delay);
			return result;
		}
		return action.get();
	}

	private void awaitHealed() {
		long deadline = System.currentTimeMillis() + MAX_HANG_MILLIS;
		synchronized (this.monitor) {
			while (this.mode == Mode.HANG && System.currentTimeMillis() < deadline) {
				try {
					this.monitor.wait(50);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new StoreException("interrupted", ex);
				}
			}
		}
	}

	private static void pause(long millis) {
		try {
			// simulated latency inside the store, not test synchronisation
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new StoreException("interrupted", ex);
		}
	}

	private volatile RuntimeException initializeFailure;

	/** Every initialize() from now on throws {@code failure} (null: works again). */
	public void failInitialize(RuntimeException failure) {
		this.initializeFailure = failure;
	}

	@Override
	public void initialize() {
		call(() -> {
			RuntimeException failure = this.initializeFailure;
			if (failure != null) {
				throw failure;
			}
			this.delegate.initialize();
			return null;
		});
	}

	@Override
	public Optional<Instant> serverTime() {
		return call(this.delegate::serverTime);
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		refusedAcquisition();
		return call(() -> this.delegate.tryAcquire(group, holder, expiredBefore, expiresAt));
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		refusedAcquisition();
		return call(() -> this.delegate.tryTakeOver(group, holder, from, epoch, expiredBefore, expiresAt));
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		if (fires != null && fires.stream().anyMatch((mark) -> !mark.ended())
				&& this.failingFireRecords.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
			throw new StoreException("injected: the store did not answer in time", null);
		}
		return call(() -> this.delegate.renew(group, holder, epoch, expiresAt, fires));
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		this.renewAllCalls.add(System.nanoTime());
		return multiLeaseWrite(() -> this.delegate.renewAll(holder, epochs, expiresAt, fires));
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		this.releases.incrementAndGet();
		return call(() -> this.delegate.release(group, holder, epoch, fires));
	}

	@Override
	public long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		this.releaseAlls.incrementAndGet();
		return multiLeaseWrite(() -> this.delegate.releaseAll(holder, epochs, fires));
	}

	/** Calls of release and of releaseAll so far. */
	public int[] releaseCalls() {
		return new int[] { this.releases.get(), this.releaseAlls.get() };
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		return call(() -> this.delegate.findLease(group));
	}

	/**
	 * Reads of the roster alone (no leases): a keeper's before its first write, a node's
	 * when told of a roster.
	 */
	public long rosterOnlyReads() {
		return this.rosterOnlyReads.get();
	}

	private volatile boolean leaseReadsFail;

	private final AtomicLong wholeRosterReads = new AtomicLong();

	/** The recent changes of every roster this store's node wrote, in order. */
	private final List<List<RosterChange>> rosterWrites = new CopyOnWriteArrayList<>();

	/**
	 * From now on, every read of leases (a follower's read of the interval, the keeper's
	 * read of other groups' leases) fails, or works again; reads of the roster alone
	 * still work.
	 */
	public void failLeaseReads(boolean fail) {
		this.leaseReadsFail = fail;
	}

	/**
	 * The recent changes of each roster this store's node wrote, in order of the writes.
	 */
	public List<List<RosterChange>> rosterWrites() {
		return List.copyOf(this.rosterWrites);
	}

	/** Reads of the whole roster, members and placements. */
	public long wholeRosterReads() {
		return this.wholeRosterReads.get();
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		if (groups.isEmpty()) {
			this.rosterOnlyReads.incrementAndGet();
		}
		else if (this.leaseReadsFail) {
			throw new StoreException("injected: a read of leases failed", null);
		}
		return call(() -> this.delegate.findLeases(groups, rosterVersion));
	}

	@Override
	public Optional<Roster> findRoster() {
		this.wholeRosterReads.incrementAndGet();
		return call(this.delegate::findRoster);
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		OptionalLong written = call(
				() -> this.delegate.writeRoster(members, changes, assignments, keeperNodeId, epoch, sequence));
		if (written.isPresent()) {
			this.rosterWrites.add(List.copyOf(changes));
		}
		return written;
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		return call(() -> this.delegate.heartbeat(node));
	}

	@Override
	public List<NodeRecord> findNodes() {
		return call(this.delegate::findNodes);
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		call(() -> {
			this.delegate.removeNode(nodeId, incarnation);
			return null;
		});
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return call(() -> this.delegate.removeNodesNotSeenSince(cutoff));
	}

}
