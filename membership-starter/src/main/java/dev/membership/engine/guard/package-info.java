/**
 * Code the starter is given (metrics, observers, listeners, a placement), called so that
 * what it throws goes no further (Guarded, GuardedCallbacks).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.guard;

import org.jspecify.annotations.NullMarked;
