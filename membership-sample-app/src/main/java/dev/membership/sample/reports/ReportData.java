package dev.membership.sample.reports;

import java.time.Instant;
import java.util.List;

/**
 * Where the report job records its runs: MongoDB ({@link MongoReportData}), or PostgreSQL
 * with the postgres profile ({@link JdbcReportData}). Every run's start and end are
 * stamped by the database.
 */
public interface ReportData {

	/**
	 * Records a run of the fire at {@code fireAt} that starts now (the database's time);
	 * returns its id.
	 */
	String startRun(String nodeId, long epoch, Instant fireAt);

	/** Records the run's end now (the database's time). */
	void endRun(String id);

	/** The newest 500 runs, newest first. */
	List<ReportRun> runs();

}
