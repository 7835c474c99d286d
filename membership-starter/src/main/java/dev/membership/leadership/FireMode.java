package dev.membership.leadership;

/**
 * How a scheduled job's fires are recorded, and so what a crash of the leader in the
 * middle of one does.
 */
public enum FireMode {

	/**
	 * Recorded in the writes the leader makes anyway (its renewal, its release): no store
	 * call per fire. After a crash, a fire whose end the next leader cannot find runs
	 * again: at least once.
	 */
	RECORDED,

	/**
	 * One write per fire, made before the run starts: not even a crash repeats a fire. A
	 * fire whose node crashed before its end is recorded as {@code missed} by the next
	 * leader, never run again: at most once.
	 */
	STRICT

}
