/**
 * Scheduled jobs fired once cluster-wide: each job's fires (ScheduledFires, its state
 * JobState, the registry JobRegistry, a fire as its runner gets it TermFire), each unit's
 * ledger of marks that rides on the lease (FireLedger, FireLedgers), what a term catches
 * up and what becomes of a fire as it comes (FirePlan, FireSpan), and the notes in the
 * history (FireNotes).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.fires;

import org.jspecify.annotations.NullMarked;
