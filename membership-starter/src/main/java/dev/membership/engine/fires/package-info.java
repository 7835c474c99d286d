/**
 * Scheduled jobs fired once cluster-wide: each job's fires (ScheduledFires, JobState,
 * FireJobs), the ledger of marks that rides on the lease (FireLedger), what a term
 * catches up (FirePlan, FireSpan), and the notes in the history (FireNotes).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.fires;

import org.jspecify.annotations.NullMarked;
