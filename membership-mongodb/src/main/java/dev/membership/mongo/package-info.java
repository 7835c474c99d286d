/**
 * The MongoDB store, blocking and reactive, the broadcast keys kept there, and
 * {@link dev.membership.mongo.EpochFence} for writes fenced with a term's epoch.
 */
@NullMarked
package dev.membership.mongo;

import org.jspecify.annotations.NullMarked;
