/**
 * The database's clock as this node knows it: estimated from the stamps that replies
 * carry (ClockSamples), with its bounds and jumps (ServerClock). Lease decisions read it,
 * never a node's wall clock.
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.clock;

import org.jspecify.annotations.NullMarked;
