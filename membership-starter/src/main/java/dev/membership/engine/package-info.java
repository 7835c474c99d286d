/**
 * The engine: {@link dev.membership.engine.MembershipNode}, the way in without Spring,
 * with its builder. Its parts are the sub-packages, each a room with one job (the loop,
 * the clock, a unit's term and its election, the lease writes, the roster, the placement,
 * the fires, the run history, the ways of leaving); they are public to each other only
 * and reached by no application: the build's architecture test checks it.
 */
@NullMarked
package dev.membership.engine;

import org.jspecify.annotations.NullMarked;
