/**
 * Letting a unit go while the node stays (UnitHandOver, Rebalance, HungRuns) and the
 * node's graceful stop (GracefulStop).
 * <p>
 * Part of the engine: reached by no application (the build checks it).
 */
@NullMarked
package dev.membership.engine.leaving;

import org.jspecify.annotations.NullMarked;
