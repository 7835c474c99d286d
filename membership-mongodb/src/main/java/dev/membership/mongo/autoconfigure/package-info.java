/**
 * The MongoDB store's auto-configuration and its {@code membership.mongo.*} properties.
 */
@NullMarked
package dev.membership.mongo.autoconfigure;

import org.jspecify.annotations.NullMarked;
