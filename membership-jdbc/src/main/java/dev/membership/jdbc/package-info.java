/**
 * The PostgreSQL store, its run history and broadcast keys, and
 * {@link dev.membership.jdbc.JdbcEpochFence} for transactions and rows fenced with a
 * term's epoch.
 */
@NullMarked
package dev.membership.jdbc;

import org.jspecify.annotations.NullMarked;
