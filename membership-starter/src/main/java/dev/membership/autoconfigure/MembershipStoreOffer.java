package dev.membership.autoconfigure;

import org.jspecify.annotations.Nullable;

/**
 * What a store module on the classpath offers: a bean its auto-configuration defines,
 * whether or not it can keep the cluster in this application. The starter names no store;
 * it reads these to choose one, to refuse two without a choice, and to say what is
 * missing when none can.
 *
 * @param store the module's name for {@code membership.store} ({@code mongodb},
 * {@code jdbc}, ...)
 * @param module what a user adds to have it ({@code dev.membership:membership-mongodb})
 * @param properties the module's {@code @ConfigurationProperties} class
 * ({@code membership.<store>.*}): its names are known, so that a typo among them fails
 * the start as one among the starter's does
 * @param missing why this module cannot keep the cluster here and what fixes it, or
 * {@code null} when it can
 */
public record MembershipStoreOffer(String store, String module, Class<?> properties, @Nullable String missing) {

	/** A module that can keep the cluster in this application. */
	public static MembershipStoreOffer ready(String store, String module, Class<?> properties) {
		return new MembershipStoreOffer(store, module, properties, null);
	}

	/** A module that cannot, and why. */
	public static MembershipStoreOffer missing(String store, String module, Class<?> properties, String why) {
		return new MembershipStoreOffer(store, module, properties, why);
	}

	public boolean isReady() {
		return this.missing == null;
	}

}
