/**
 * The members of the cluster, and their comings and goings.
 */
@NullMarked
package dev.membership.liveness;

import org.jspecify.annotations.NullMarked;
