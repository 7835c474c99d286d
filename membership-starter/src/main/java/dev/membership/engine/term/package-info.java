/**
 * A unit (a group or a partition) and a term as the node holds it: its deadline, its
 * work, the drain (Unit, Term, TermExecution, Runs, DrainWait).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.term;

import org.jspecify.annotations.NullMarked;
