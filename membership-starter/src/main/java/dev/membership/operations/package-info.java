/**
 * What an operator, an admin console or a test tells the cluster to do, through one node:
 * {@link dev.membership.operations.ClusterOperations}, one method per command, each with
 * a typed request that names who asked ({@link dev.membership.operations.Requester}).
 * {@code /actuator/cluster}'s write operations map onto it one to one. The queries are
 * {@link dev.membership.Membership}'s.
 */
@NullMarked
package dev.membership.operations;

import org.jspecify.annotations.NullMarked;
