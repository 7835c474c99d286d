/**
 * Signed broadcasts between members, and the leadership notices that ride on them.
 */
@NullMarked
package dev.membership.broadcast;

import org.jspecify.annotations.NullMarked;
