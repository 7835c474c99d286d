/**
 * The PostgreSQL store's auto-configuration, its own connection pools and its
 * {@code membership.jdbc.*} properties.
 */
@NullMarked
package dev.membership.jdbc.autoconfigure;

import org.jspecify.annotations.NullMarked;
