/**
 * {@code @LeaderOnly}: methods that run only on the leader, guarded in memory and tracked
 * for the drain.
 */
@NullMarked
package dev.membership.scheduling;

import org.jspecify.annotations.NullMarked;
