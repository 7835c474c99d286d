package dev.membership.mongo;

import dev.membership.autoconfigure.MembershipProperties;

/**
 * A breach: a store's class outside its auto-configuration that needs Spring Boot's side.
 */
final class BreachStoreUsesAutoConfiguration {

	MembershipProperties properties;

}
