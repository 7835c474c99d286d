package dev.membership.simulation;

/**
 * What the simulator checks, by name: every violation it reports starts with the name in
 * brackets, so that a broken variant can be required to trip the one it is meant to (a
 * liveness complaint never stands for a safety one).
 */
enum Invariant {

	/**
	 * A unit's epoch rises at every new term, on every node, and never goes back in the
	 * store.
	 */
	EPOCHS_RISE,

	/** At most one node believes it leads a unit (or owns a partition), at every step. */
	ONE_BELIEVER,

	/**
	 * A belief is in the store's lease: held by the believer's incarnation, with the
	 * belief's epoch.
	 */
	BELIEF_MATCHES_LEASE,

	/**
	 * A belief ends, by its node's clock, no later than its lease can expire in the
	 * database.
	 */
	BELIEF_ENDS_BEFORE_LEASE,

	/**
	 * Work of a unit never runs on two nodes after a graceful stop, resign or move: the
	 * drain came first.
	 */
	DRAINED_BEFORE_HANDOVER,

	/**
	 * Work that runs on two nodes at once after a fault (a pause, a cut-off, a lost
	 * lease) has a later run under a greater epoch, so that the fence refuses the older
	 * one, and a fault that allows it came first.
	 */
	FENCED_OVERLAP,

	/**
	 * The roster's keeper writes the roster under its own term of the default group: one
	 * keeper per epoch.
	 */
	ONE_KEEPER_PER_ROSTER_EPOCH,

	/** The roster's version never goes back. */
	ROSTER_VERSION_RISES,

	/**
	 * After the faults heal, the database's clock settles for every node within a bound.
	 */
	CLOCK_SETTLES,

	/** After the faults heal, every group has a leader within a bound. */
	LEADERS_AFTER_HEAL,

	/**
	 * After that, every node lists exactly the running processes as live members within a
	 * bound.
	 */
	ROSTERS_AGREE,

	/**
	 * After that, the partitions are placed over the running nodes, balanced, within a
	 * bound.
	 */
	PARTITIONS_PLACED,

	/** No lease stays with a stopped node longer than the lease. */
	LEASES_AFTER_STOP,

	/**
	 * Step-downs shorter than the lease less two intervals lose no renewal, change no
	 * leadership and move no partition.
	 */
	STABLE_THROUGH_STEP_DOWNS,

	/**
	 * Behind a mongos whose clock is skewed by less than the lease, no node sees a clock
	 * jump.
	 */
	NO_DISTRUST_BEHIND_MONGOS,

	/**
	 * A crashed holder's group or partition is taken over within the lease and two
	 * intervals.
	 */
	CRASH_TAKEN_OVER,

	/**
	 * No scheduled fire begins before its instant by the database's clock (once the clock
	 * settled after a jump).
	 */
	FIRE_NOT_EARLY,

	/**
	 * No scheduled fire begins again once the lease recorded it ended (or a later one),
	 * once the same process ran it to its end, or once the term that ran it to its end
	 * released the lease; with {@code STRICT}, never.
	 */
	FIRE_ONCE,

	/**
	 * Every fire from the first the lease recorded to the last begun ran, or is in the
	 * run history as missed or skipped (but for notes a crash took with it).
	 */
	FIRES_ACCOUNTED,

	/**
	 * A leader that stays one keeps running its due fires: a fire skipped as overlapping
	 * a run names a run that began, or a fire accounted for otherwise.
	 */
	FIRES_KEEP_RUNNING;

	/** {@code what}, as a violation of this invariant. */
	String violation(String what) {
		return "[" + name() + "] " + what;
	}

	/** Whether {@code violation} reports this invariant. */
	boolean reported(String violation) {
		return violation != null && violation.startsWith("[" + name() + "]");
	}

}
