package dev.membership.sample.tenants;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.sample.FencedCheckpoint;

/**
 * Where the tenant roll-up keeps its runs and checkpoints: MongoDB
 * ({@link MongoTenantData}), or PostgreSQL with the postgres profile
 * ({@link JdbcTenantData}). Every run's start and end are stamped by the database.
 */
public interface TenantData {

	/**
	 * Records a run of {@code partition} that starts now (the database's time); returns
	 * its id.
	 */
	String startRun(String nodeId, int partition, long epoch);

	/**
	 * Moves the partition's checkpoint to {@code at}, fenced with the partition's
	 * {@code term}.
	 */
	FencedCheckpoint checkpoint(LeadershipTerm term, int partition, java.time.Instant at, String nodeId);

	/** Records the run's end now (the database's time). */
	void endRun(String id, @Nullable Boolean accepted);

	/** The newest 500 runs, newest first. */
	List<TenantRun> runs();

}
