/**
 * This node as the store sees it: its record (ThisNode) and its heartbeat document
 * (Heartbeats).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.heartbeat;

import org.jspecify.annotations.NullMarked;
