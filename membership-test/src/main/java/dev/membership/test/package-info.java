/**
 * Test support for applications: {@link dev.membership.test.AutoConfigureMembershipTest}
 * and {@link dev.membership.test.SimulatedCluster} run the application's node with
 * simulated peers on an in-memory store, in virtual time, so leader-only code is tested
 * without a database or waiting.
 */
@NullMarked
package dev.membership.test;

import org.jspecify.annotations.NullMarked;
