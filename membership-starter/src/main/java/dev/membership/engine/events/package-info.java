/**
 * Events to the starter's reactions, then to the application (EventDispatch), and whether
 * the node is ready (Readiness).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.events;

import org.jspecify.annotations.NullMarked;
