package dev.membership.autoconfigure;

import dev.membership.spi.MembershipStore;

/**
 * Wraps the store the node uses (metrics, tracing, fault injection in tests). Applied in
 * bean order.
 */
@FunctionalInterface
public interface MembershipStoreDecorator {

	MembershipStore decorate(MembershipStore store);

}
