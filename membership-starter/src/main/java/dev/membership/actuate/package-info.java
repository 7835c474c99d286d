/**
 * Actuator: {@code /actuator/cluster}, the health and info contributors, and the meters.
 */
@NullMarked
package dev.membership.actuate;

import org.jspecify.annotations.NullMarked;
