/**
 * What applications use: {@link dev.membership.Membership}, the cluster as this node sees
 * it, and its events and status.
 */
@NullMarked
package dev.membership;

import org.jspecify.annotations.NullMarked;
