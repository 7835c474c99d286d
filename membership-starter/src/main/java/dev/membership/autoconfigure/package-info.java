/**
 * Spring Boot auto-configuration of the node, {@code @LeaderOnly}, broadcasts, actuator
 * and meters; configuration properties and failure analysis.
 */
@NullMarked
package dev.membership.autoconfigure;

import org.jspecify.annotations.NullMarked;
