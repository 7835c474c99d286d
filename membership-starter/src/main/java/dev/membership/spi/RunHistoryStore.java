package dev.membership.spi;

import java.util.List;

/**
 * Where the cluster's run history lives: every node writes its runs, any node reads
 * everyone's. Not on any safety path: a failed write is retried with the next batch, and
 * a store that is down loses nothing until the node's buffer is full. Each method is one
 * call of the store, bounded by a timeout shorter than the lease.
 */
public interface RunHistoryStore {

	/** Creates what the history needs (indexes, an expiry by age); idempotent. */
	void initialize();

	/**
	 * Writes {@code records} in one call: a record marked {@link RunRecord#first()}
	 * whole, any other only its end (no effect when the store no longer keeps that run).
	 * A store keeps a bounded number of runs per job, partition and node process (the
	 * oldest replaced), none older than a retention it is set up with, and a bounded
	 * number per job and partition however many processes came and went (see
	 * {@link RunRings}).
	 */
	void save(List<RunRecord> records);

	/** The runs that {@code query} selects, newest first. */
	List<RunRecord> find(RunQuery query);

}
