package dev.membership.nemesis;

/**
 * The faults the nemesis injects, each on one node (its target) unless it says otherwise,
 * held for a while and then healed.
 */
enum Fault {

	/** The node and the database no longer reach each other (its peers still do). */
	DATABASE_CUT,

	/** The node and its peers no longer reach each other (the database still does). */
	PEERS_CUT,

	/** The node alone on one side (no peer, no database), the rest on the other. */
	MINORITY,

	/**
	 * The node alone with the database, the other nodes together on the other side, cut
	 * off from both: the minority holds the database, the majority of the nodes does not.
	 */
	MAJORITY_CUT,

	/** The node's packets to the database are lost; the database's to it arrive. */
	ONE_WAY,

	/**
	 * Every byte to and from the database late by more than the renewal interval, with
	 * jitter.
	 */
	DELAY,

	/** A third of the packets to and from the database lost. */
	LOSS,

	/** The link to the database cut for a few hundred milliseconds: it heals mid-call. */
	FLAP,

	/** {@code SIGSTOP} for longer than the lease, then {@code SIGCONT}. */
	PAUSE,

	/** {@code SIGKILL}, then a new process of the node. */
	CRASH,

	/** {@code SIGTERM} (the graceful stop), then a new process of the node. */
	STOP,

	/** The node's wall clock jumps five minutes ahead. */
	CLOCK_AHEAD,

	/** The node's wall clock jumps five minutes back. */
	CLOCK_BACK,

	/**
	 * A new process of the node whose every clock, monotonic included, runs fast or slow
	 * at the drift the docs allow (200 ppm), cut off from the database once it leads
	 * something, so that its own clock ends its beliefs; then a process at the true rate.
	 */
	DRIFT,

	/**
	 * The database's server and backends frozen ({@code SIGSTOP}) for longer than the
	 * lease.
	 */
	DATABASE_PAUSE,

	/**
	 * The database's server stopped (fast or immediate, at random) and started again on
	 * its data: every connection lost.
	 */
	DATABASE_RESTART,

	/**
	 * A failover to a synchronous standby that stopped acknowledging: a standby is made
	 * (the server stopped, copied, started again, and told to wait for it), frozen
	 * ({@code SIGSTOP}) so that every commit waits for it, then the primary crashes
	 * ({@code SIGQUIT}) and the standby, thawed, is promoted; the nodes reach it through
	 * the relay from then on. A commit that waited was never acknowledged, and the
	 * standby has every one that was.
	 */
	SYNC_STANDBY_FAILOVER

}
