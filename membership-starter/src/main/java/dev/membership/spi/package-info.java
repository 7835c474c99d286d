/**
 * What a store or a runtime implements: {@link dev.membership.spi.MembershipStore} and
 * its records, where a node runs ({@link dev.membership.spi.NodeRuntime}), where it hears
 * other nodes' news, and the hooks that metrics and tests observe it through.
 */
@NullMarked
package dev.membership.spi;

import org.jspecify.annotations.NullMarked;
