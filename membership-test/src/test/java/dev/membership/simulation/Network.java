package dev.membership.simulation;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * The path between the nodes and the store, as the fault plan sets it: per-node cut-offs,
 * a store outage for all, slow periods (requests and replies that take longer than the
 * client waits, so a write may apply after its caller gave up), and lost replies, some of
 * them of writes that applied. Draws every delay from the simulation's seed.
 */
final class Network {

	static final long MILLI = 1_000_000L;

	/**
	 * When (virtual time) each node's latest call timed out by the network's own chance
	 * (a lost request or reply, a slow one), fault or not.
	 */
	private final java.util.Map<String, Long> timedOut = new java.util.HashMap<>();

	void timedOut(String nodeId, long now) {
		this.timedOut.put(nodeId, now);
	}

	/** When node {@code nodeId}'s latest call timed out (Long.MIN_VALUE: never). */
	long lastTimeout(String nodeId) {
		return this.timedOut.getOrDefault(nodeId, Long.MIN_VALUE);
	}

	private final Random random;

	final long operationTimeoutNanos;

	boolean storeDown;

	final Set<String> cutOff = new HashSet<>();

	/** Share of calls that are slow, and how slow they can be. */
	double slowShare = 0.01;

	long slowMaxNanos = 500 * MILLI;

	/** Share of requests lost before they reach the store. */
	double lostRequestShare = 0.001;

	/** Share of replies lost after the store applied the request. */
	double lostReplyShare = 0.001;

	/**
	 * A primary's step-down, from and until (virtual time): calls issued meanwhile wait
	 * for the new primary (the driver's server selection), calls in flight when it
	 * happens fail, some after they applied.
	 */
	private long stepDownFrom = Long.MAX_VALUE;

	private long stepDownUntil = Long.MIN_VALUE;

	/** Whether the store call running now is a node's (not the checker's). */
	boolean nodeCall;

	/** Whether a node's call that arrives now meets a step-down. */
	boolean stepDownMeets(long now) {
		return this.nodeCall && steppingDown(now);
	}

	Network(Random random, long operationTimeoutNanos) {
		this.random = random;
		this.operationTimeoutNanos = operationTimeoutNanos;
	}

	Random random() {
		return this.random;
	}

	boolean reaches(String nodeId) {
		return !this.storeDown && !this.cutOff.contains(nodeId);
	}

	/** One way of a round trip. */
	long latency() {
		if (this.random.nextDouble() < this.slowShare) {
			return MILLI + (long) (this.random.nextDouble() * this.slowMaxNanos);
		}
		return 200_000 + (long) (this.random.nextDouble() * 3 * MILLI);
	}

	boolean losesRequest() {
		return this.random.nextDouble() < this.lostRequestShare;
	}

	boolean losesReply() {
		return this.random.nextDouble() < this.lostReplyShare;
	}

	/**
	 * The primary steps down from {@code from} to {@code until}; one overlapping another
	 * extends it.
	 */
	void stepDown(long from, long until) {
		if (this.stepDownUntil < from) {
			this.stepDownFrom = from;
		}
		this.stepDownUntil = Math.max(this.stepDownUntil, until);
	}

	boolean steppingDown(long now) {
		return now >= this.stepDownFrom && now < this.stepDownUntil;
	}

	/**
	 * How long a call issued at {@code now} waits for a primary before it goes out: zero
	 * but in a step-down.
	 */
	long waitForPrimary(long now) {
		return steppingDown(now) ? this.stepDownUntil - now : 0;
	}

	/** Back to a healthy network. */
	void heal() {
		this.stepDownUntil = Long.MIN_VALUE;
		this.storeDown = false;
		this.cutOff.clear();
		this.slowShare = 0;
		this.lostRequestShare = 0;
		this.lostReplyShare = 0;
	}

}
