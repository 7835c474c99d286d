package dev.membership.engine.heartbeat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.MembershipStatus;
import dev.membership.engine.clock.ClockSamples;
import dev.membership.engine.loop.LoopJob;
import dev.membership.engine.loop.NodeLoop;
import dev.membership.spi.MembershipSettings;
import dev.membership.spi.NodeStore;
import dev.membership.spi.MonotonicClock;
import dev.membership.spi.NodeRecord;

/**
 * This node's heartbeats (its node document, stamped by the store), its liveness as far
 * as it knows, and duplicate node ids: a second process with this id takes the document
 * from this one at every heartbeat, or writes a lease or a roster entry of this id after
 * this one started. Confined to the loop but for the figures {@code status()} reads.
 */
public final class Heartbeats {

	private static final Logger log = LoggerFactory.getLogger(Heartbeats.class);

	private final MembershipSettings settings;

	private final NodeStore store;

	private final NodeLoop loop;

	private final ClockSamples samples;

	private final ThisNode self;

	private volatile long lastHeartbeatNanos;

	private volatile boolean heartbeatSucceeded;

	private volatile boolean duplicateNodeId;

	/**
	 * What this node's document said at its last write, and when (local monotonic time).
	 */
	private @Nullable NodeRecord lastDocument;

	private long lastDocumentNanos;

	private int takeoversInARow;

	public Heartbeats(MembershipSettings settings, NodeStore store, NodeLoop loop, ClockSamples samples,
			ThisNode self) {
		this.settings = settings;
		this.store = store;
		this.loop = loop;
		this.samples = samples;
		this.self = self;
	}

	/**
	 * Local monotonic time of the last successful heartbeat or renewal, or null before
	 * the first.
	 */
	@Nullable Long lastHeartbeatNanos() {
		return this.heartbeatSucceeded ? this.lastHeartbeatNanos : null;
	}

	/**
	 * The node's status as health reports it, from what the heartbeats and the loop know.
	 */
	public MembershipStatus status(boolean running, boolean ready, NodeLoop loop, MonotonicClock clock,
			List<MembershipStatus.HungRun> hungRuns, boolean drained) {
		Long last = lastHeartbeatNanos();
		Duration age = (last != null) ? Duration.ofNanos(clock.nanoTime() - last) : null;
		return new MembershipStatus(running, ready, age, loop.consecutiveFailures(), loop.lastError(),
				duplicateNodeId(), hungRuns, drained);
	}

	boolean duplicateNodeId() {
		return this.duplicateNodeId;
	}

	/**
	 * A renewal sent at {@code sentNanos} succeeded: it keeps this node live, as a
	 * heartbeat would.
	 */
	public void renewed(long sentNanos) {
		this.lastHeartbeatNanos = sentNanos;
		this.heartbeatSucceeded = true;
	}

	/**
	 * Whether a node kept live by its renewals must still write its document: when what
	 * it says changed (groups, address), and now and then so that it is never old enough
	 * to be removed (the keeper learns its groups there).
	 */
	static boolean documentDue(@Nullable NodeRecord last, NodeRecord now, long lastNanos, long nowNanos,
			Duration deadNodeRetention) {
		return last == null || !last.equals(now) || nowNanos - lastNanos > deadNodeRetention.dividedBy(2).toNanos();
	}

	public boolean documentDue() {
		return documentDue(this.lastDocument, this.self.document(), this.lastDocumentNanos,
				this.loop.clock().nanoTime(), this.settings.deadNodeRetention());
	}

	/**
	 * The roster lists this process with other groups or partitions than its document
	 * says: the keeper knows it from its leases only, since another process with this id
	 * took the document. Renewals keep it live but do not tell its groups, so the
	 * document is due again at the next tick.
	 */
	public void documentLost() {
		this.lastDocument = null;
	}

	/**
	 * Writes this node's document; {@code recover} says which failures the job survives.
	 */
	public void beat(LoopJob job, Predicate<RuntimeException> recover) {
		NodeRecord record = this.self.document();
		this.loop.call(job, () -> this.store.heartbeat(record), (heartbeat, sent, received) -> {
			// two processes with one id take the document from each other at every
			// heartbeat; once can be a write of this process that the store answered late
			this.takeoversInARow = heartbeat.tookOver() ? this.takeoversInARow + 1 : 0;
			if (this.heartbeatSucceeded && this.takeoversInARow >= 2) {
				duplicateSeen();
			}
			this.samples.take(sent, received, heartbeat.writtenAt());
			this.lastHeartbeatNanos = sent;
			this.heartbeatSucceeded = true;
			this.lastDocument = record;
			this.lastDocumentNanos = sent;
		}, recover);
	}

	/**
	 * Another incarnation with this node's id wrote at {@code stamp} (a lease, a node
	 * document, a roster entry) after this one started: two processes run with it. A
	 * previous run of this node wrote before this one started.
	 */
	public void writtenBy(String incarnation, @Nullable Instant stamp) {
		Instant startedAt = this.self.startedAt();
		if (!this.self.incarnation().equals(incarnation) && stamp != null && startedAt != null
				&& stamp.isAfter(startedAt)) {
			duplicateSeen();
		}
	}

	private void duplicateSeen() {
		if (!this.duplicateNodeId) {
			log.error(
					"Node id '{}' is used by another process as well as by this one ({}). Only one of them can "
							+ "lead; give every instance its own membership.node-id.",
					this.self.nodeId(), this.self.incarnation());
		}
		this.duplicateNodeId = true;
	}

}
