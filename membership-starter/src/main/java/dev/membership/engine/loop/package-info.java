/**
 * The node's loop: the one thread that owns every state change and makes the store's
 * calls (NodeLoop), the jobs it runs step by step (LoopJob), the node's phase
 * (Lifecycle), and the production runtime of threads (ThreadedRuntime).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.loop;

import org.jspecify.annotations.NullMarked;
