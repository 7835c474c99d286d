/**
 * What every event of the cluster is ({@link dev.membership.event.MembershipEvent}) and
 * how a node without Spring hands them to the application
 * ({@link dev.membership.event.MembershipEventListener}).
 */
@NullMarked
package dev.membership.event;

import org.jspecify.annotations.NullMarked;
