/**
 * Where partitions go: the placement as last read or written (Assignments), operators'
 * steering (Steering), the keeper's placing (CoordinatorPlacement) and a restarting
 * member's grace (RestartGrace).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.placement;

import org.jspecify.annotations.NullMarked;
