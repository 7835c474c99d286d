package dev.membership.sample.housekeeping;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.sample.FencedCheckpoint;

/**
 * Where the housekeeping keeps its items, runs and checkpoint: MongoDB
 * ({@link MongoHousekeepingData}), or PostgreSQL with the postgres profile
 * ({@link JdbcHousekeepingData}). Every run's start and end are stamped by the database.
 */
public interface HousekeepingData {

	void writeItem(String nodeId, Instant createdAt, Instant expiresAt);

	/** Records a run that starts now (the database's time); returns its id. */
	String startRun(String nodeId, long epoch);

	/** Deletes the items that expired before {@code before}; returns how many. */
	long purgeExpiredBefore(Instant before);

	/** Moves the purge checkpoint, fenced with {@code term}'s epoch. */
	FencedCheckpoint checkpoint(LeadershipTerm term, Instant purgedBefore, String nodeId);

	/** Records the run's end now (the database's time). */
	void endRun(String id, long purged, @Nullable Boolean accepted, @Nullable String error);

	/** The newest 500 runs, newest first. */
	List<HousekeepingRun> runs();

}
