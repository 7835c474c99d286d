package dev.membership.autoconfigure;

import dev.membership.engine.MembershipNode;
import dev.membership.engine.MembershipNodeBuilder;

/**
 * Customizes the auto-configured {@link MembershipNode} before it is built: its runtime,
 * clock or observer, say. Every customizer bean is applied, in order. What
 * {@code membership-test} uses to run the node in virtual time.
 */
@FunctionalInterface
public interface MembershipNodeCustomizer {

	void customize(MembershipNodeBuilder builder);

}
