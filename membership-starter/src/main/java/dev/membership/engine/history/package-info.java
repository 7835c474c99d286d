/**
 * The run history this node writes off the loop (RunHistory, PendingRuns) and the record
 * of operators' actions (OperatorRecord).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.history;

import org.jspecify.annotations.NullMarked;
