package dev.membership.leadership;

/** Why a node stopped leading a group. */
public enum RevocationReason {

	/** The application or an operator asked the node to resign. */
	RESIGNED,

	/**
	 * A renewal found that the lease now belongs to someone else (or to another term of
	 * ours).
	 */
	LEASE_LOST,

	/**
	 * No renewal succeeded before the local deadline (store unreachable, call hung, long
	 * pause): the node stepped down by its own clock before the lease could expire in the
	 * database.
	 */
	RENEWAL_DEADLINE_PASSED,

	/** The node is shutting down and released the lease. */
	SHUTDOWN,

	/**
	 * The coordinator placed the group's leadership (or the partition) on another node:
	 * this node handed it over gracefully, after its running work drained.
	 */
	MOVED,

	/**
	 * A run of the group's (or the partition's) work outlived its {@code maxRunTime}: the
	 * node handed the unit over (the drain waits for the run up to
	 * {@code membership.shutdown.drain-timeout}, then releases; the epoch fences what the
	 * run still writes) and does not take it again while the run goes on.
	 */
	HUNG,

	/**
	 * An operator drained the node ({@code POST /actuator/cluster/drain}, or readiness
	 * refusing traffic): it hands everything over, each unit after its drain, to the node
	 * that takes it when this one leaves, and takes nothing until undrained.
	 */
	DRAINED

}
